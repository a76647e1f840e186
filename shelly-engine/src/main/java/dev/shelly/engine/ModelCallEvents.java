package dev.shelly.engine;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.RunContext;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.modeladapter.FallbackCompleter.FallbackListener;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.RetryingCompleter.RetryListener;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Puts the retries and fallbacks of the engine's providers on the event bus, as events of the run
 * whose model call they belong to: a link of every turn's chain notes the run on the calling
 * thread while its model call runs, and the providers' listeners, called on that thread, name it.
 * Nothing is noted while the bus has no subscriber.
 */
final class ModelCallEvents implements RunInterceptor {
    private static final ThreadLocal<AgentEvent.Source> CALLING = new ThreadLocal<>();

    private final Consumer<AgentEvent> publish;
    private final BooleanSupplier listened;

    ModelCallEvents(Consumer<AgentEvent> publish, BooleanSupplier listened) {
        this.publish = publish;
        this.listened = listened;
    }

    @Override
    public ModelResponse interceptModelCall(ModelChain chain) {
        if (!listened.getAsBoolean()) {
            return chain.proceed(chain.call().request());
        }
        RunContext run = chain.call().run();
        AgentEvent.Source outer = CALLING.get();
        CALLING.set(new AgentEvent.Source(run.agent().orElse(null), run.parentAgent().orElse(null), run.depth(),
                run.runId().orElse(null), run.parentRunId().orElse(null), run.sessionId().orElse(null)));
        try {
            return chain.proceed(chain.call().request());
        } finally {
            if (outer == null) {
                CALLING.remove();
            } else {
                CALLING.set(outer);
            }
        }
    }

    /** Hears the providers' retries. */
    RetryListener retries() {
        return event -> {
            AgentEvent.Source source = CALLING.get();
            if (source != null) {
                publish.accept(new AgentEvent.ModelRetried(source, event.attempt(), event.maxAttempts(),
                        event.failure() == null ? "" : event.failure().getMessage(), event.delay()));
            }
        };
    }

    /** Hears the providers' fallbacks. */
    FallbackListener fallbacks() {
        return event -> {
            AgentEvent.Source source = CALLING.get();
            if (source != null) {
                publish.accept(new AgentEvent.ModelFellBack(source, event.from(), event.to(), event.reason()));
            }
        };
    }
}
