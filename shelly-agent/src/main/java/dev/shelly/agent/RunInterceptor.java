package dev.shelly.agent;

import dev.shelly.chats.Message;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTarget;

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
 * Links are registered in one place, the {@link RunContext}: {@link RunContext.Builder#interceptors}.
 * When an agent's run starts, its own links ({@link Agent.Builder#interceptors}, and the hooks
 * it was given) are appended to its context's, once; delegated children inherit the list and
 * append theirs. The chain of a run is, outermost first:
 * <ol>
 *   <li>the context's links, in the order registered ({@link RunContext.Builder#modelCallHooks}
 *       and {@link RunContext.Builder#toolCallHooks} register hooks as links at that place);
 *   <li>the agent's links ({@link Agent.Builder#interceptors}, {@link Agent.Builder#modelCallHooks},
 *       {@link Agent.Builder#toolCallHooks}), in the order given;
 *   <li>the agent's {@link Middleware}, first outermost (around the run only; not inherited);
 *   <li>the context's {@link RunObserver}s, innermost, so that telemetry records the request and
 *       the arguments that reach the model and the tool.
 * </ol>
 * A call goes down the chain in that order and its result comes back up in reverse. Inside the
 * innermost link: for a run, the loop; for a model call, the completer; for a decision, the
 * context's {@link Approvals} (or {@link ToolDecision#ALLOW}); for a tool call, the tool.
 * All calls of a turn are decided before any of them runs. Context management shapes the request
 * before the first link sees it.
 *
 * <h2>Contract</h2>
 * A link must not return null (the run fails with an {@link AgentException} naming it). An
 * exception a link throws fails the model call or the run as the completer's or the tool's own
 * would (a tool call's link that throws fails the run after the turn's results are appended).
 * Calls of one turn are decided on the run's thread in call order; tool calls run concurrently,
 * so {@link #interceptToolCall} may be called from several threads at once. {@link #onEvent} is
 * read-only and must not block.
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

    /** The rest of a run. */
    interface RunChain {
        /**
         * The agent that runs.
         *
         * @return the agent
         */
        Agent agent();

        /**
         * The run's context.
         *
         * @return the context
         */
        RunContext context();

        /**
         * Runs the rest of the chain.
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
        /**
         * The call, with the request as the links before this one left it.
         *
         * @return the call
         */
        ModelCall call();

        /**
         * The provider and model the agent's completer asks.
         *
         * @return the target
         */
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
        /**
         * The call, with the arguments as the links before this one left them.
         *
         * @return the invocation
         */
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
        /**
         * The call as it runs.
         *
         * @return the invocation
         */
        ToolInvocation invocation();

        /**
         * Runs the rest of the chain, the tool last.
         *
         * @param call the call, or one with other arguments
         * @return the result
         */
        ToolResult proceed(ToolCall call);
    }
}
