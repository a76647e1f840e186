package dev.shelly.modeladapter;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolDefinition;
import java.util.List;

/**
 * Anything that can answer a conversation: a model provider, a scripted test double, a router,
 * a retrying wrapper. This is the centre of Shelly.
 *
 * <p>The contract:
 * <ul>
 *   <li>{@code complete} reads the chat and returns the assistant's reply; it never appends to
 *       the chat (the caller decides what to do with the reply).
 *   <li>The tools are what the model may call; the reply's {@link dev.shelly.chats.ToolCall}
 *       parts name them.
 *   <li>Failures are {@link ModelException}s with a {@link ModelException.Kind}.
 *   <li>Cancellation is interruption: when the calling thread is interrupted, the call is
 *       abandoned promptly (an HTTP call is cancelled) and a
 *       {@link java.util.concurrent.CancellationException} is thrown with the thread's interrupt
 *       flag still set.
 * </ul>
 */
@FunctionalInterface
public interface Completer {

    /**
     * Answers the conversation.
     *
     * @param chat the conversation so far; not modified
     * @param tools the tools the model may call; may be empty
     * @return the assistant's reply, with {@link ReplyMetadata} such as usage and stop reason
     *     where the completer knows them
     * @throws ModelException when the model cannot answer
     * @throws java.util.concurrent.CancellationException when the calling thread is interrupted
     */
    Message complete(Chat chat, List<ToolDefinition> tools);

    /**
     * Answers the conversation while delivering the reply's pieces to a listener as they
     * arrive, and returns the very same message the non-streaming call would.
     *
     * <p>Completers that cannot stream answer at once and deliver no delta; that is the
     * default.
     *
     * @param chat the conversation so far; not modified
     * @param tools the tools the model may call; may be empty
     * @param listener receives deltas on the calling thread, in order
     * @return the assistant's complete reply
     * @throws ModelException when the model cannot answer
     * @throws java.util.concurrent.CancellationException when the calling thread is interrupted
     */
    default Message complete(Chat chat, List<ToolDefinition> tools, StreamListener listener) {
        return complete(chat, tools);
    }
}
