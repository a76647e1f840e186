package dev.shelly.agent;

import dev.shelly.chats.ToolResult;
import java.util.function.Function;

/**
 * Sees, and may change, every tool call of a run: allow it, deny it with a reason the model
 * reads, rewrite its arguments, or pause the run for a decision made outside it.
 *
 * <p>Hooks are added to an agent ({@link Agent.Builder#toolCallHooks}) or to a run's context
 * ({@link RunContext.Builder#toolCallHooks}); the context's run first and reach delegated
 * children too. {@link #beforeToolCall} runs for <em>every</em> call of a turn, in the order the
 * hooks were added, before any call of the turn runs; the first deny or pause ends the chain for
 * that call, and rewrites chain. {@link #afterToolCall} runs in reverse order, on the thread that
 * ran the call, for calls that ran. A hook that throws or returns null fails the run with an
 * {@link AgentException}; every call of the turn is then answered
 * {@code tool 'x' was not run: a tool-call hook failed}.
 *
 * <p>A convenience on the run's one interception chain: each hook is a {@link RunInterceptor}
 * link at the place it was registered (see there for the whole order).
 */
public interface ToolCallHook {

    /**
     * Decides about a call before it runs.
     *
     * @param call the call, with any earlier hook's rewrite
     * @return the decision; {@link ToolDecision#ALLOW} by default
     */
    default ToolDecision beforeToolCall(ToolInvocation call) {
        return ToolDecision.ALLOW;
    }

    /**
     * Sees, and may replace, a call's result.
     *
     * @param call the call as it ran
     * @param result its result
     * @return the result the model reads; {@code result} by default
     */
    default ToolResult afterToolCall(ToolInvocation call, ToolResult result) {
        return result;
    }

    /**
     * A hook that only decides before calls.
     *
     * @param decide the decision for a call
     * @return the hook
     */
    static ToolCallHook before(Function<ToolInvocation, ToolDecision> decide) {
        if (decide == null) {
            throw new IllegalArgumentException("ToolCallHook.before function must not be null");
        }
        return new ToolCallHook() {
            @Override
            public ToolDecision beforeToolCall(ToolInvocation call) {
                return decide.apply(call);
            }
        };
    }
}
