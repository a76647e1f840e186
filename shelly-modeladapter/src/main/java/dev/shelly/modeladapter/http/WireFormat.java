package dev.shelly.modeladapter.http;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.StreamListener;
import java.util.List;

/**
 * One provider's wire format: how a chat becomes a request body, and how a reply, a stream
 * and an error response become a {@link Message} or a {@link ModelException}.
 *
 * <p>A wire format holds no per-call state and is safe for many threads; each streamed call
 * gets its own {@link StreamDecoder}. {@link HttpCompleter} does the HTTP around it.
 */
public interface WireFormat {

    /**
     * The provider's name, used in errors and reply metadata.
     *
     * @return e.g. {@code anthropic}
     */
    String provider();

    /**
     * The endpoint's path, relative to the base URL.
     *
     * @return e.g. {@code v1/messages}
     */
    String path();

    /**
     * Translates a conversation into a request body.
     *
     * @param chat the conversation
     * @param tools the tools the model may call
     * @param stream whether to ask for a streamed reply
     * @return the JSON request body, UTF-8
     * @throws IllegalArgumentException when the chat or a tool cannot be sent (a tool schema that
     *     is not JSON, say)
     */
    byte[] request(Chat chat, List<ToolDefinition> tools, boolean stream);

    /**
     * Parses a complete (non-streamed) reply.
     *
     * @param body the response body of a successful call
     * @return the assistant's message with its metadata
     * @throws ModelException of kind {@code INVALID_RESPONSE} when the body is not a valid reply
     */
    Message reply(byte[] body);

    /**
     * Starts decoding one streamed reply.
     *
     * @param listener receives the deltas
     * @return a decoder for this call only
     */
    StreamDecoder decoder(StreamListener listener);

    /**
     * Turns an HTTP error response into the right kind of failure.
     *
     * @param response the status, headers and body
     * @return the exception to throw
     */
    ModelException error(ErrorResponse response);
}
