package dev.shelly.modeladapter;

/**
 * Anything that can answer a model request: a model provider, a scripted test double, a router,
 * a retrying wrapper. This is the centre of Shelly.
 *
 * <p>The contract:
 * <ul>
 *   <li>{@code complete} reads the {@link ModelRequest} (a snapshot of the messages, the tools,
 *       the options) and returns a {@link ModelResponse}: the assistant's reply with its usage,
 *       stop reason, model and id. It never appends anywhere; the caller decides what to do with
 *       the reply.
 *   <li>The request's tools are what the model may call; the reply's
 *       {@link dev.shelly.chats.ToolCall} parts name them.
 *   <li>Failures are {@link ModelException}s with a {@link ModelException.Kind}. An option the
 *       provider cannot map is refused before any HTTP, as {@code INVALID_REQUEST}.
 *   <li>Cancellation is interruption: when the calling thread is interrupted, the call is
 *       abandoned promptly (an HTTP call is cancelled) and a
 *       {@link java.util.concurrent.CancellationException} is thrown with the thread's interrupt
 *       flag still set.
 * </ul>
 */
@FunctionalInterface
public interface Completer {

    /**
     * Answers the request.
     *
     * @param request the messages, tools and options
     * @return the reply with its usage and stop reason
     * @throws ModelException when the model cannot answer
     * @throws java.util.concurrent.CancellationException when the calling thread is interrupted
     */
    ModelResponse complete(ModelRequest request);

    /**
     * Answers the request while delivering the reply's pieces to a listener as they arrive, and
     * returns exactly what the non-streaming call returns.
     *
     * <p>Completers that cannot stream answer at once and deliver no delta; that is the
     * default.
     *
     * @param request the messages, tools and options
     * @param listener receives deltas on the calling thread, in order
     * @return the complete reply
     * @throws ModelException when the model cannot answer
     * @throws java.util.concurrent.CancellationException when the calling thread is interrupted
     */
    default ModelResponse complete(ModelRequest request, StreamListener listener) {
        return complete(request);
    }

    /**
     * What this completer calls: the provider and the model it asks for, for telemetry and logs
     * that name a call before it is made. Wrappers (retrying, rate-limited) answer with what
     * they wrap.
     *
     * @return the target; {@link ModelTarget#UNKNOWN} by default
     */
    default ModelTarget target() {
        return ModelTarget.UNKNOWN;
    }
}
