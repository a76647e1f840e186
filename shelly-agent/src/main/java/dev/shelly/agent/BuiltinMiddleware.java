package dev.shelly.agent;

import dev.shelly.chats.Message;
import dev.shelly.chats.ShellyException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;

/** The bodies of the built-in middleware. */
final class BuiltinMiddleware {
    /** How long a timed-out or cancelled runner may take to stop before it is abandoned. */
    static final Duration STOP_GRACE = Duration.ofSeconds(2);

    private BuiltinMiddleware() {}

    static Message withTimeout(Runner next, Duration limit) {
        FutureTask<Message> task = new FutureTask<>(next::run);
        Thread worker = Thread.ofVirtual().name("shelly-timeout-" + next.name()).start(task);
        try {
            return task.get(TimeUnit.NANOSECONDS.convert(limit), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            worker.interrupt();
            awaitStop(task);
            if (task.state() == Future.State.SUCCESS) {
                return task.resultNow();
            }
            throw new AgentTimeoutException(next.name(), limit);
        } catch (InterruptedException e) {
            worker.interrupt();
            awaitStop(task);
            Thread.currentThread().interrupt();
            throw new CancellationException("agent '" + next.name() + "' was cancelled");
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        }
    }

    /** Waits up to the grace for an interrupted task to end; keeps an interrupt that arrives meanwhile. */
    private static void awaitStop(FutureTask<Message> task) {
        try {
            task.get(TimeUnit.NANOSECONDS.convert(STOP_GRACE), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | CancellationException e) {
            // The task ended with a failure, or is abandoned: the caller decides what to report.
        }
    }

    private static RuntimeException rethrow(Throwable cause) {
        if (cause instanceof RuntimeException r) {
            return r;
        }
        if (cause instanceof Error err) {
            throw err;
        }
        return new ShellyException("runner failed: " + cause, cause);
    }

    static Message recovering(Runner next) {
        try {
            return next.run();
        } catch (ShellyException | CancellationException | OutOfMemoryError e) {
            throw e;
        } catch (RuntimeException | Error e) {
            throw new AgentException(next.name(), "agent '" + next.name() + "' failed unexpectedly: " + e, e);
        }
    }

    static Message logging(Runner next, Logger log) {
        long start = System.nanoTime();
        log.info("agent '{}' started", next.name());
        try {
            Message reply = next.run();
            log.info("agent '{}' finished in {} ms", next.name(), millisSince(start));
            if (log.isDebugEnabled()) {
                log.debug("agent '{}' replied: {}", next.name(), reply.text());
            }
            return reply;
        } catch (CancellationException e) {
            log.info("agent '{}' was cancelled after {} ms", next.name(), millisSince(start));
            throw e;
        } catch (RuntimeException | Error e) {
            log.error("agent '{}' failed after {} ms: {}", next.name(), millisSince(start), e.getMessage(), e);
            throw e;
        }
    }

    static Message guarded(Runner next, Guardrail check) {
        Message reply = next.run();
        Optional<String> reason;
        try {
            reason = check.check(reply);
        } catch (RuntimeException e) {
            throw new GuardrailException(next.name(), "the check itself failed: " + e, reply, e);
        }
        if (reason != null && reason.isPresent()) {
            throw new GuardrailException(next.name(), reason.get(), reply, null);
        }
        return reply;
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }
}
