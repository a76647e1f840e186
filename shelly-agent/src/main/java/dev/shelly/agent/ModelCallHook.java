package dev.shelly.agent;

import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Sees, and may change, every model call of a run: rewrite the request (the messages the model
 * sees, the tools offered, the options) and see or replace the response.
 *
 * <p>Hooks are added to an agent ({@link Agent.Builder#modelCallHooks}) or to a run's context
 * ({@link RunContext.Builder#modelCallHooks}); the context's run first and reach delegated
 * children too. {@link #beforeModelCall} runs in the order the hooks were added, each seeing the
 * previous one's rewrite; {@link #afterModelCall} runs in reverse order, as middleware nests. A
 * tool the rewritten request no longer offers is refused if the model calls it anyway. Rewriting
 * the messages changes only what the model sees, never the chat. A hook that throws or returns
 * null fails the run with an {@link AgentException}.
 *
 * <p>A convenience on the run's one interception chain: each hook is a {@link RunInterceptor}
 * link at the place it was registered (see there for the whole order).
 */
public interface ModelCallHook {

    /**
     * Sees, and may rewrite, a request before it is sent.
     *
     * @param call the call, with the request as rewritten by earlier hooks
     * @return the request to send; {@code call.request()} by default
     */
    default ModelRequest beforeModelCall(ModelCall call) {
        return call.request();
    }

    /**
     * Sees, and may replace, the response.
     *
     * @param call the call, with the request that was sent
     * @param response the response, as replaced by later hooks
     * @return the response the agent takes; {@code response} by default
     */
    default ModelResponse afterModelCall(ModelCall call, ModelResponse response) {
        return response;
    }

    /**
     * A hook that only rewrites requests.
     *
     * @param rewrite the request to send for a call
     * @return the hook
     */
    static ModelCallHook before(Function<ModelCall, ModelRequest> rewrite) {
        if (rewrite == null) {
            throw new IllegalArgumentException("ModelCallHook.before function must not be null");
        }
        return new ModelCallHook() {
            @Override
            public ModelRequest beforeModelCall(ModelCall call) {
                return rewrite.apply(call);
            }
        };
    }

    /**
     * A hook that only sees or replaces responses.
     *
     * @param replace the response to take for a call
     * @return the hook
     */
    static ModelCallHook after(BiFunction<ModelCall, ModelResponse, ModelResponse> replace) {
        if (replace == null) {
            throw new IllegalArgumentException("ModelCallHook.after function must not be null");
        }
        return new ModelCallHook() {
            @Override
            public ModelResponse afterModelCall(ModelCall call, ModelResponse response) {
                return replace.apply(call, response);
            }
        };
    }
}
