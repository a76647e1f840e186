package dev.shelly.agent;

import dev.shelly.agent.RunInterceptor.ToolInvocation;
import dev.shelly.agent.internal.Observers;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelResponse;
import java.util.List;
import java.util.function.Supplier;

/**
 * The observers of a run as a link of the one chain ({@link RunInterceptor}), so the loop knows
 * only the chain.
 */
final class Links {
    private Links() {}

    /**
     * The context's {@link RunObserver}s, as one link: each starts an observation on the way
     * down (in the order added) and ends it on the way back (in reverse), on the same thread.
     *
     * @param observers the active observers
     */
    record Observed(List<RunObserver> observers) implements RunInterceptor {
        @Override
        public Message interceptRun(RunChain chain) {
            RunObserver.Observation<Message> observed = Observers.start(observers,
                    o -> o.runStarted(chain.agent(), chain.context()));
            Message reply;
            try {
                reply = chain.proceed();
            } catch (RuntimeException | Error e) {
                observed.end(null, e);
                throw e;
            }
            if (chain.paused()) {
                observed.end(null, ((Chains.Run) chain).run().pauseSignal());
            } else {
                observed.end(reply, null);
            }
            return reply;
        }

        @Override
        public ModelResponse interceptModelCall(ModelChain chain) {
            return within(Observers.start(observers, o -> o.modelCallStarted(chain.call(), chain.target())),
                    () -> chain.proceed(chain.call().request()));
        }

        @Override
        public ToolResult interceptToolCall(ToolChain chain) {
            ToolInvocation invocation = chain.invocation();
            return within(Observers.start(observers, o -> o.toolCallStarted(invocation)),
                    () -> chain.proceed(invocation.call()));
        }

        /** Does the work inside an observation, which ends with its result or its failure. */
        private static <R> R within(RunObserver.Observation<R> observed, Supplier<R> work) {
            R result;
            try {
                result = work.get();
            } catch (RuntimeException | Error e) {
                observed.end(null, e);
                throw e;
            }
            observed.end(result, null);
            return result;
        }
    }
}
