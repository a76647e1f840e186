package dev.shelly.provider.spi;

import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelResponse;

/**
 * Decodes the server-sent events of one streamed reply into deltas and a final response.
 *
 * <p>{@link #onEvent} and {@link #finish} run on the calling thread, in order; {@link #isEnd}
 * may run on the thread reading the network and must only look at the event.
 */
public interface StreamDecoder {

    /**
     * Whether this event ends the stream, so that reading stops after it.
     *
     * @param event an event as it arrives
     * @return true for the provider's last event (or an error event)
     */
    boolean isEnd(SseEvent event);

    /**
     * Handles the next event: updates the reply being built and delivers deltas.
     *
     * @param event the event
     * @throws ModelException when the event reports an error or is not valid
     */
    void onEvent(SseEvent event);

    /**
     * Whether the events handled so far make a complete reply, so that the server closing the
     * stream here is its normal end. APIs that send a last event (Anthropic's
     * {@code message_stop}, OpenAI's {@code [DONE]}) never need this (the default, false: a
     * stream that closes before {@link #isEnd} is cut). Gemini has no last event: its stream
     * ends when the chunk with the finish reason has come and the server closes it.
     *
     * <p>Runs on the calling thread, after every event before the close has been handled.
     *
     * @return true when a close now ends the reply normally
     */
    default boolean completeAtClose() {
        return false;
    }

    /**
     * The complete reply, after the end event has been handled.
     *
     * @return the response, equal to the one the non-streamed call returns
     * @throws ModelException of kind {@code INVALID_RESPONSE} when the events did not make a
     *     valid reply
     */
    ModelResponse finish();
}
