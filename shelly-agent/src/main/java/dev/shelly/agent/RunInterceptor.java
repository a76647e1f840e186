package dev.shelly.agent;

import dev.shelly.agent.AgentException.GuardrailException;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.ShellyException;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTarget;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;

/**
 * The one way into a run: a link of the run's interception chain, around the run, around every
 * model call, around the decision about every tool call and around every tool call's execution,
 * plus read-only observation of the run's events. Each method is given the chain and proceeds
 * with it (or does not: a link may answer itself), as OkHttp's interceptors do.
 *
 * <pre>{@code
 * RunInterceptor audit = new RunInterceptor() {
 *     public ToolDecision decideToolCall(DecisionChain chain) {
 *         log.info("tool {} asked for", chain.invocation().call().name());
 *         return chain.proceed(chain.invocation().call());   // the later links and the approvals decide
 *     }
 *     public ModelResponse interceptModelCall(ModelChain chain) {
 *         ModelResponse response = chain.proceed(chain.call().request());
 *         meter.record(response.usage());
 *         return response;
 *     }
 * };
 * RunContext scope = RunContext.builder().interceptors(audit).build();
 * }</pre>
 *
 * <h2>Where it is registered, and the order</h2>
 * Links are registered in one place, the {@link RunContext}: {@link RunContext.Builder#interceptors}
 * (and {@link RunContext.Builder#observers}, {@link RunContext.Builder#listener},
 * {@link RunContext.Builder#approvals}). An agent's defaults ({@link Agent.Builder#interceptors},
 * {@link Agent.Builder#middleware}, {@link Agent.Builder#listener}) feed the context of each of
 * its runs once, when the run starts; delegated children inherit the context's links and the
 * agent's interceptors, not its middleware. The chain of a run is, outermost first:
 * <ol>
 *   <li>the agent's {@linkplain Agent.Builder#timeout time limit}, when it has one: the rest of
 *       the run works on a thread of its own that is interrupted at the deadline;
 *   <li>the run's own first links: context management, which gives each model call its
 *       messages (the model's view of the chat, see {@link Agent.Builder#contextPolicy}) and tries
 *       a call the model refused as too long once more; and the context's {@link Approvals}, where
 *       an answer a person gave to a waiting call decides it alone;
 *   <li>the context's links, in the order registered;
 *   <li>the agent's interceptors, in the order given;
 *   <li>the agent's middleware, in the order given (this agent's runs only);
 *   <li>the context's {@link RunObserver}s, one link, so that telemetry records the request and
 *       the arguments that reach the model and the tool;
 *   <li>for a {@linkplain Agent#run(String, Class) structured run}, the check of the answer
 *       against the record, which may append one corrective turn and proceed again.
 * </ol>
 * A call goes down the chain in that order and its result comes back up in reverse. Inside the
 * innermost link: for a run, the loop; for a model call, the completer; for a decision, the
 * approvals' policy (or {@link ToolDecision#ALLOW}); for a tool call, the tool. All calls of a
 * turn are decided, in call order, before any of them runs. Events go to the agent's listener,
 * the context's listener, then to every link that {@linkplain #observesEvents() observes events},
 * in the order of the chain. Messages about a link number it among the context's and the
 * agent's links ({@code interceptor 2 (x) of agent 'a' ...}).
 *
 * <h2>Contract</h2>
 * A link must not return null (the run fails with an {@link AgentException} naming it). An
 * exception a link throws fails the model call or the run as the completer's or the tool's own
 * would (a tool call's link that throws fails the run after the turn's results are appended).
 * Calls of one turn are decided on the run's thread in call order; tool calls run concurrently,
 * so {@link #interceptToolCall} may be called from several threads at once. {@link #onEvent} is
 * read-only and must not block.
 *
 * <h2>Conveniences</h2>
 * The static methods make the common links: hooks before and after model and tool calls
 * ({@link #beforeModelCall}, {@link #afterModelCall}, {@link #beforeToolCall},
 * {@link #afterToolCall}), and links around a run ({@link #outputGuardrail}, {@link #recovery},
 * {@link #logging}).
 */
public interface RunInterceptor {

    /**
     * Around one run of an agent: its paused turn, if any, its input, and the loop.
     *
     * @param chain the rest of the run
     * @return the run's final message
     */
    default Message interceptRun(RunChain chain) {
        return chain.proceed();
    }

    /**
     * Around one model call.
     *
     * @param chain the call and the rest of its chain
     * @return the response
     */
    default ModelResponse interceptModelCall(ModelChain chain) {
        return chain.proceed(chain.call().request());
    }

    /**
     * Around the decision about one tool call, made before any call of the turn runs:
     * {@link ToolDecision#ALLOW}, a deny, a pause or a rewrite of the arguments.
     *
     * @param chain the call and the rest of the decision
     * @return the decision
     */
    default ToolDecision decideToolCall(DecisionChain chain) {
        return chain.proceed(chain.invocation().call());
    }

    /**
     * Around the execution of one tool call that was allowed.
     *
     * @param chain the call and the rest of its chain
     * @return the result
     */
    default ToolResult interceptToolCall(ToolChain chain) {
        return chain.proceed(chain.invocation().call());
    }

    /**
     * Observes an event of the run (and of the runs below it), on the thread that made it; an
     * exception is logged and the event dropped.
     *
     * @param event the event
     */
    default void onEvent(AgentEvent event) {
    }

    /**
     * Whether this link wants the run's events; only then is {@link #onEvent} called, so a link
     * that does not watch events costs the runs nothing for them.
     *
     * @return false by default
     */
    default boolean observesEvents() {
        return false;
    }

    /**
     * A model call about to be made, as a link sees it.
     *
     * @param run the run making the call
     * @param iteration the iteration of the run, from 1
     * @param request the request, as the links before this one left it
     */
    record ModelCall(RunContext run, int iteration, ModelRequest request) {}

    /**
     * A tool call about to be decided or run, as a link sees it.
     *
     * @param run the run making the call
     * @param iteration the iteration of the run, from 1
     * @param call the call as the model made it, with the arguments as the links before this one
     *     left them
     */
    record ToolInvocation(RunContext run, int iteration, ToolCall call) {}

    /** The rest of a run. */
    interface RunChain {
        /** {@return the agent that runs} */
        Agent agent();

        /** {@return the run's context} */
        RunContext context();

        /**
         * The chat the run works on: its conversation's, which a link may append to before it
         * proceeds again.
         *
         * @return the chat
         */
        Chat chat();

        /**
         * Runs the rest of the chain. Proceeding a second time goes on from the chat as it is
         * then (the run's input is appended once), and counts against the same iteration limit.
         *
         * @return the run's final message; when the run {@linkplain #paused() paused}, the
         *     reply whose tool calls wait
         */
        Message proceed();

        /**
         * Whether the run paused: after {@link #proceed()} returned, some tool calls of its last
         * turn wait for a decision (or a delegated child waits). A pause is a value the loop
         * returns, not a failure; the public run methods then throw {@link RunPausedException}.
         *
         * @return true once the run has paused
         */
        boolean paused();
    }

    /** One model call and the rest of its chain. */
    interface ModelChain {
        /** {@return the call, with the request as the links before this one left it} */
        ModelCall call();

        /** {@return the provider and model the agent's completer asks} */
        ModelTarget target();

        /**
         * Sends a request down the rest of the chain.
         *
         * @param request the request, the call's own or a rewrite of it
         * @return the response
         */
        ModelResponse proceed(ModelRequest request);
    }

    /** The decision about one tool call and the rest of it. */
    interface DecisionChain {
        /** {@return the call, with the arguments as the links before this one left them} */
        ToolInvocation invocation();

        /**
         * Asks the rest of the chain. A call with other arguments is a rewrite: the tool gets
         * them, the chat keeps the model's.
         *
         * @param call the call, or a rewrite of it with the same id and name
         * @return the decision of the rest of the chain
         */
        ToolDecision proceed(ToolCall call);
    }

    /** One tool call's execution and the rest of its chain. */
    interface ToolChain {
        /** {@return the call as it runs} */
        ToolInvocation invocation();

        /**
         * Runs the rest of the chain, the tool last.
         *
         * @param call the call, or one with other arguments
         * @return the result
         */
        ToolResult proceed(ToolCall call);
    }

    // ------------------------------------------------------------------ conveniences

    /**
     * A link that sees, and may rewrite, every model call's request before the later links and
     * the model: the messages the model sees (never the chat), the tools offered (a tool the
     * rewritten request no longer offers is refused if the model calls it anyway), the options.
     *
     * @param rewrite the request to send for a call; returning null fails the run
     * @return the link
     */
    static RunInterceptor beforeModelCall(Function<ModelCall, ModelRequest> rewrite) {
        require(rewrite, "beforeModelCall");
        return new RunInterceptor() {
            @Override
            public ModelResponse interceptModelCall(ModelChain chain) {
                ModelRequest request = rewrite.apply(chain.call());
                if (request == null) {
                    String agent = chain.call().run().agent().orElse("?");
                    throw new AgentException(agent, "a model-call hook of agent '" + agent
                            + "' returned null instead of a request", null);
                }
                return chain.proceed(request);
            }

            @Override
            public String toString() {
                return "beforeModelCall hook";
            }
        };
    }

    /**
     * A link that sees, and may replace, every model call's response on its way back.
     *
     * @param replace the response to take for a call (with the request as this link sent it on)
     * @return the link
     */
    static RunInterceptor afterModelCall(BiFunction<ModelCall, ModelResponse, ModelResponse> replace) {
        require(replace, "afterModelCall");
        return new RunInterceptor() {
            @Override
            public ModelResponse interceptModelCall(ModelChain chain) {
                return replace.apply(chain.call(), chain.proceed(chain.call().request()));
            }

            @Override
            public String toString() {
                return "afterModelCall hook";
            }
        };
    }

    /**
     * A link that decides about every tool call before the later links: allow (the later links
     * and the approvals still decide), deny with a reason the model reads, rewrite the
     * arguments (the later links decide about the rewrite), or pause the run for a decision made
     * outside it. A hook that throws fails the run after every call of the turn is answered
     * {@code tool 'x' was not run: a tool-call hook failed}.
     *
     * @param decide the decision for a call
     * @return the link
     */
    static RunInterceptor beforeToolCall(Function<ToolInvocation, ToolDecision> decide) {
        require(decide, "beforeToolCall");
        return new RunInterceptor() {
            @Override
            public ToolDecision decideToolCall(DecisionChain chain) {
                ToolCall call = chain.invocation().call();
                ToolDecision decision = decide.apply(chain.invocation());
                return switch (decision) {
                    case null -> null;
                    case ToolDecision.Allow allow -> chain.proceed(call);
                    case ToolDecision.Rewrite rewrite -> {
                        ToolDecision rest = chain.proceed(new ToolCall(call.id(), call.name(), rewrite.arguments()));
                        yield rest instanceof ToolDecision.Allow ? rewrite : rest;
                    }
                    default -> decision;
                };
            }

            @Override
            public String toString() {
                return "beforeToolCall hook";
            }
        };
    }

    /**
     * A link that sees, and may replace, the result of every tool call that ran, on the thread
     * that ran it.
     *
     * @param replace the result the model reads for a call
     * @return the link
     */
    static RunInterceptor afterToolCall(BiFunction<ToolInvocation, ToolResult, ToolResult> replace) {
        require(replace, "afterToolCall");
        return new RunInterceptor() {
            @Override
            public ToolResult interceptToolCall(ToolChain chain) {
                return replace.apply(chain.invocation(), chain.proceed(chain.invocation().call()));
            }

            @Override
            public String toString() {
                return "afterToolCall hook";
            }
        };
    }

    /**
     * A link that checks a run's final message: when the check gives a reason, the run fails
     * with a {@link GuardrailException} carrying it (the message stays in the chat). A check that
     * throws rejects the message too. A paused run is not checked.
     *
     * @param check empty when the message may pass, else why it is rejected
     * @return the link
     */
    static RunInterceptor outputGuardrail(Function<Message, Optional<String>> check) {
        require(check, "outputGuardrail");
        return new RunInterceptor() {
            @Override
            public Message interceptRun(RunChain chain) {
                Message reply = chain.proceed();
                if (chain.paused()) {
                    return reply;
                }
                String agent = chain.agent().name();
                Optional<String> reason;
                try {
                    reason = check.apply(reply);
                } catch (RuntimeException e) {
                    throw new GuardrailException(agent, "the check itself failed: " + e, reply, e);
                }
                if (reason != null && reason.isPresent()) {
                    throw new GuardrailException(agent, reason.get(), reply, null);
                }
                return reply;
            }
        };
    }

    /**
     * A link that turns an unexpected exception or error from inside a run (a bug in a tool
     * wiring, a listener, a custom completer) into an {@link AgentException} naming the agent and
     * the original failure, with the original as its cause. Shelly's own exceptions
     * ({@link ShellyException}: model errors, iteration limits, timeouts), cancellation and
     * {@link OutOfMemoryError} pass through unchanged.
     *
     * @return the link
     */
    static RunInterceptor recovery() {
        return new RunInterceptor() {
            @Override
            public Message interceptRun(RunChain chain) {
                try {
                    return chain.proceed();
                } catch (ShellyException | CancellationException | OutOfMemoryError e) {
                    throw e;
                } catch (RuntimeException | Error e) {
                    String agent = chain.agent().name();
                    throw new AgentException(agent, "agent '" + agent + "' failed unexpectedly: " + e, e);
                }
            }
        };
    }

    /**
     * A link that logs each run: its start, and its end with the duration, at INFO (a pause
     * too); a failure with its exception at ERROR; a cancellation at INFO. The final message's
     * text is logged at DEBUG only; prompts are never logged.
     *
     * @param log where to log
     * @return the link
     */
    static RunInterceptor logging(Logger log) {
        require(log, "logging");
        return new RunInterceptor() {
            @Override
            public Message interceptRun(RunChain chain) {
                String agent = chain.agent().name();
                long start = System.nanoTime();
                log.info("agent '{}' started", agent);
                try {
                    Message reply = chain.proceed();
                    log.info(chain.paused() ? "agent '{}' paused for a decision after {} ms" : "agent '{}' finished in {} ms",
                            agent, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                    if (!chain.paused() && log.isDebugEnabled()) {
                        log.debug("agent '{}' replied: {}", agent, reply.text());
                    }
                    return reply;
                } catch (CancellationException e) {
                    log.info("agent '{}' was cancelled after {} ms", agent,
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                    throw e;
                } catch (RuntimeException | Error e) {
                    log.error("agent '{}' failed after {} ms: {}", agent,
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), e.getMessage(), e);
                    throw e;
                }
            }
        };
    }

    private static void require(Object value, String what) {
        if (value == null) {
            throw new IllegalArgumentException("RunInterceptor." + what + " needs a function, got null");
        }
    }
}
