package dev.shelly.agent.internal;

import dev.shelly.agent.AgentException.StructuredOutputException;
import dev.shelly.agent.Answer;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.agent.RunInterceptor.ModelCall;
import dev.shelly.agent.RunInterceptor.ToolInvocation;
import dev.shelly.agent.RunObserver;
import dev.shelly.agent.StructuredOutput;
import dev.shelly.agent.ToolDecision;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The links a run adds to its chain ({@link RunInterceptor}) for what the agent, the context and
 * the run ask for: context management and the approvals' answers first, the context's observers
 * and a structured run's check of its answer innermost. The loop knows only the chain.
 */
final class Links {
    private Links() {}

    /** A link the run adds itself, not one of its context's: messages number only the context's. */
    interface Own extends RunInterceptor {}

    /** The context's {@link RunObserver}s around a model call made outside a run's loop ({@link OutsideLoop}). */
    record ObservedCalls(List<RunObserver> observers) implements Own {
        @Override
        public ModelResponse interceptModelCall(ModelChain chain) {
            return Observed.observedModelCall(observers, chain);
        }
    }

    /**
     * The context's {@link RunObserver}s, as one link: each starts an observation on the way
     * down (in the order added) and ends it on the way back (in reverse), on the same thread.
     *
     * @param run the run, whose pause ends its observation
     * @param observers the active observers
     */
    record Observed(Run run, List<RunObserver> observers) implements Own {
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
            return observedModelCall(observers, chain);
        }

        @Override
        public ToolResult interceptToolCall(ToolChain chain) {
            ToolInvocation invocation = chain.invocation();
            return within(Observers.start(observers, o -> o.toolCallStarted(invocation)),
                    () -> chain.proceed(invocation.call()));
        }

        /** A model call inside the observers' observation of it. */
        static ModelResponse observedModelCall(List<RunObserver> observers, ModelChain chain) {
            return within(Observers.start(observers, o -> o.modelCallStarted(chain.call(), chain.target())),
                    () -> chain.proceed(chain.call().request()));
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
    record Structured(Run run) implements Own {
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

    /**
     * Context management, the first link, for model calls: gives the call its messages (the
     * model's view of the chat, as the agent's context policy shapes it) and, when the model
     * refuses the request as longer than its window, shapes the view again once and sends the
     * call again; then measures what was sent.
     *
     * @param run the run, whose conversation holds the context state
     */
    record Shaping(Run run) implements Own {
        private static final Logger LOG = LoggerFactory.getLogger(Shaping.class);

        /**
         * A model call down the rest of the chain with its messages given, shaped again once when
         * the model refuses the request as too long, then measured. A flat run ({@link Run#flat()})
         * does the same without a chain: its loop shapes with {@link #shape}, {@link #refused}
         * and {@link #measured}, and the agent calls the completer.
         */
        @Override
        public ModelResponse interceptModelCall(ModelChain chain) {
            ModelCall call = chain.call();
            ModelRequest base = call.request();
            while (true) {
                CallView view = shape(run, call.iteration(), base.tools(), base.options(), base.conversationId());
                ModelRequest shaped = run.shaped;
                try {
                    ModelResponse response = chain.proceed(shaped);
                    ModelRequest sent = furthest(chain);
                    measured(run, sent, response, sent == shaped ? view : null);
                    return response;
                } catch (ModelException e) {
                    refused(run, e, furthest(chain) == shaped ? view : null);
                }
            }
        }

        /** The request as it went furthest down the rest of the chain: a link may have rewritten it. */
        private static ModelRequest furthest(ModelChain rest) {
            return ((Chains.Model) rest).sent()[0].request();
        }

        /**
         * Shapes a model call's request: the chat's messages as they are when nothing is shaped,
         * else the model's view of them. Leaves the request in {@link Run#shaped} (and the tools
         * a strategy scoped in {@link Run#scoped}) and marks when the call is sent.
         *
         * @return the view the request was made from, or null when the messages went as they are
         */
        static CallView shape(Run run, int iteration, List<ToolDefinition> offered, ModelOptions options,
                String conversationId) {
            ContextManager manager = run.contextManager;
            List<Message> plain = manager.plain(run.prompt);
            CallView view = plain != null ? null : manager.view(run, iteration, run.prompt, offered);
            ModelRequest shaped = view == null ? new ModelRequest(plain, offered, options, conversationId)
                    : new ModelRequest(view.list(), view.toolList(), options, conversationId);
            run.shaped = shaped;
            run.scoped = view != null && view.scoped() ? shaped.tools() : null;
            run.callStart = System.nanoTime();
            return view;
        }

        /**
         * A refused model call: thrown on unless the model refused the request as too long; then
         * context management takes note, and the caller shapes the request again.
         *
         * @param view the view the refused request was made from, or null when a link rewrote it
         */
        static void refused(Run run, ModelException e, CallView view) {
            if (e.kind() != ModelException.Kind.CONTEXT_LENGTH_EXCEEDED) {
                throw e;
            }
            LOG.debug("agent '{}': the model refused the request as too long: {}", run.name(), e.getMessage());
            run.contextManager.overflowed(e, view);
        }

        /**
         * What context management measures of an answered call, when it manages anything.
         *
         * @param sent the request as it went furthest
         * @param view the view it was made from, or null when a link rewrote it
         */
        static void measured(Run run, ModelRequest sent, ModelResponse response, CallView view) {
            if (run.contextManager.active()) {
                run.contextManager.measured(sent, response, view);
            }
        }
    }

    /**
     * The approvals' answers, the first link for decisions: an answer a person gave to a call
     * that waited decides it alone; any other call goes down the chain, to the approvals' policy
     * at its end.
     *
     * @param run the run, whose context holds the approvals
     */
    record Answers(Run run) implements Own {
        @Override
        public ToolDecision decideToolCall(DecisionChain chain) {
            ToolCall call = chain.invocation().call();
            Approver approver = run.approver;
            Answer answer = approver.take(approver.id(run.context.path(), call.id()));
            return answer != null ? approver.decision(answer, call) : chain.proceed(call);
        }
    }
}
