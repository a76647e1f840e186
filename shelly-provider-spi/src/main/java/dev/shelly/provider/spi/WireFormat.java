package dev.shelly.provider.spi;

import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StreamListener;

/**
 * One provider's wire format: how a {@link ModelRequest} becomes a request body, and how a
 * reply, a stream and an error response become a {@link ModelResponse} or a
 * {@link ModelException}.
 *
 * <p>A format holds the provider's default options and merges them under each request's own
 * ({@code request.options().orElse(defaults)}), so the body it writes is exactly what is sent.
 * An option it cannot map is refused with a {@link ModelException} of kind
 * {@code INVALID_REQUEST}.
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
     * The model the requests ask for, as telemetry names a call before it is made.
     *
     * @return e.g. {@code claude-sonnet-4-5}; null when the format does not say
     */
    default String model() {
        return null;
    }

    /**
     * The endpoint's path, relative to the base URL.
     *
     * @return e.g. {@code v1/messages}
     */
    String path();

    /**
     * The endpoint's path for a plain or a streamed call. Most APIs stream on the same endpoint
     * (the default); Gemini streams on another ({@code :streamGenerateContent?alt=sse}).
     *
     * @param stream whether the call streams
     * @return the path relative to the base URL, possibly with a query
     */
    default String path(boolean stream) {
        return path();
    }

    /**
     * Translates a request into a request body.
     *
     * @param request the messages, tools and options
     * @param stream whether to ask for a streamed reply
     * @return the JSON request body, UTF-8
     * @throws IllegalArgumentException when a message or a tool cannot be sent (a tool schema
     *     that is not JSON, say)
     * @throws ModelException of kind {@code INVALID_REQUEST} when the provider cannot take an
     *     option
     */
    byte[] request(ModelRequest request, boolean stream);

    /**
     * Parses a complete (non-streamed) reply.
     *
     * @param body the response body of a successful call
     * @param request the request it answers
     * @return the response
     * @throws ModelException of kind {@code INVALID_RESPONSE} when the body is not a valid reply
     */
    ModelResponse reply(byte[] body, ModelRequest request);

    /**
     * Starts decoding one streamed reply.
     *
     * @param request the request it answers
     * @param listener receives the deltas
     * @return a decoder for this call only
     */
    StreamDecoder decoder(ModelRequest request, StreamListener listener);

    /**
     * Turns an HTTP error response into the right kind of failure.
     *
     * @param response the status, headers and body
     * @return the exception to throw
     */
    ModelException error(ErrorResponse response);
}
