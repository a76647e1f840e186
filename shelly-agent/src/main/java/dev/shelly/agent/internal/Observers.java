package dev.shelly.agent.internal;

import dev.shelly.agent.RunObserver;
import dev.shelly.agent.RunObserver.Observation;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Internal, not API. Calls a run's {@link RunObserver}s as their contract says: starts in order,
 * ends in reverse order, an observer's exception logged and ignored. With no observers nothing is
 * allocated: callers check {@link List#isEmpty()} first.
 */
public final class Observers {
    private static final Logger LOG = LoggerFactory.getLogger(Observers.class);

    /** The observation that does nothing, which a run skips. */
    private static final Observation<Object> NONE = RunObserver.Observation.none();

    private Observers() {}

    /**
     * Starts one observation per observer.
     *
     * @param observers the observers, not empty
     * @param start how an observer starts its observation
     * @param <R> what the observed work returns
     * @return one observation that ends them all, in reverse order
     */
    public static <R> Observation<R> start(List<RunObserver> observers, Function<RunObserver, Observation<R>> start) {
        if (observers.size() == 1) {
            return started(observers.getFirst(), start);
        }
        @SuppressWarnings({"unchecked", "rawtypes"}) // a generic array: made raw, read as its type
        Observation<R>[] all = new Observation[observers.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = started(observers.get(i), start);
        }
        return (result, failure) -> {
            for (int i = all.length - 1; i >= 0; i--) {
                all[i].end(result, failure);
            }
        };
    }

    private static <R> Observation<R> started(RunObserver observer, Function<RunObserver, Observation<R>> start) {
        Observation<R> observation;
        try {
            observation = start.apply(observer);
        } catch (RuntimeException e) {
            LOG.warn("run observer {} failed to start an observation; it is ignored", observer, e);
            return RunObserver.Observation.none();
        }
        if (observation == null || observation == NONE) {
            return RunObserver.Observation.none();
        }
        return (result, failure) -> {
            try {
                observation.end(result, failure);
            } catch (RuntimeException e) {
                LOG.warn("run observer {} failed to end an observation; it is ignored", observer, e);
            }
        };
    }

    /**
     * How the observers carry their thread's state over to a forked task.
     *
     * @param observers the observers
     * @return the wrapping, or null when there are no observers
     */
    public static UnaryOperator<Runnable> propagation(List<RunObserver> observers) {
        if (observers.isEmpty()) {
            return null;
        }
        return task -> {
            Runnable wrapped = task;
            for (int i = observers.size() - 1; i >= 0; i--) {
                RunObserver observer = observers.get(i);
                try {
                    Runnable next = observer.propagate(wrapped);
                    if (next != null) {
                        wrapped = next;
                    }
                } catch (RuntimeException e) {
                    LOG.warn("run observer {} failed to propagate its state to a forked task; it is ignored", observer, e);
                }
            }
            return wrapped;
        };
    }
}
