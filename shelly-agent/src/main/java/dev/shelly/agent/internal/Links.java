package dev.shelly.agent.internal;

import dev.shelly.agent.AgentException.StructuredOutputException;
import dev.shelly.agent.RunInterceptor.ToolInvocation;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.agent.RunObserver;
import dev.shelly.agent.StructuredOutput;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelResponse;
import java.util.List;
import java.util.function.Supplier;

/**
 * The links a run adds to its chain ({@link RunInterceptor}) for what the context and the run
 * ask for: the context's observers, and a structured run's check of its answer. The loop knows
 * only the chain.
 */
final class Links {
    private Links() {}

    /**
     * The context's {@link RunObserver}s, as one link: each starts an observation on the way
     * down (in the order added) and ends it on the way back (in reverse), on the same thread.
     *
     * @param run the run, whose pause ends its observation
     * @param observers the active observers
     */
    record Observed(Run run, List<RunObserver> observers) implements RunInterceptor {
        @Override
        public Message interceptRun(RunChain chain) {
            RunObserver.Observation<Message> observed = Observers.start(observers,
                    o -> o.runStarted(chain));
            Message reply;
            try {
                reply = chain.proceed();
            } catch (RuntimeException | Error e) {
                observed.end(null, e);
                throw e;
            }
            if (chain.paused()) {
                observed.end(null, run.pauseSignal());
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

    /**
     * A structured run's check of its answer, the innermost link: when the run ends with an
     * answer, binds the response to the record; an answer that does not fit gets one corrective
     * user turn (sender {@value StructuredOutput#SENDER}), and the run proceeds again.
     *
     * @param run the run, which keeps its structured output, the bound record and its latest response
     */
    record Structured(Run run) implements RunInterceptor {
        @Override
        public Message interceptRun(RunChain chain) {
            StructuredOutput<?> out = run.out;
            boolean corrected = false;
            while (true) {
                Message reply = chain.proceed();
                ModelResponse response = run.lastResponse;
                if (chain.paused() || response == null || reply.role() != Role.ASSISTANT || !reply.toolCalls().isEmpty()) {
                    return reply;
                }
                StructuredOutput.Binding<?> binding = out.bind(response);
                if (binding instanceof StructuredOutput.Binding.Bound<?> bound) {
                    run.structured = bound.value();
                    return reply;
                }
                StructuredOutput.Binding.Mismatch<?> mismatch = (StructuredOutput.Binding.Mismatch<?>) binding;
                if (!mismatch.correctable() || corrected) {
                    throw new StructuredOutputException(run.name(), out.type(), mismatch.answer(), mismatch.problems(),
                            corrected);
                }
                corrected = true;
                run.append(Message.text(StructuredOutput.SENDER, Role.USER, out.correction(mismatch.problems())));
            }
        }
    }
}
