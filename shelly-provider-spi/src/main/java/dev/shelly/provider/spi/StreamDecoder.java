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
     * The complete reply, after the end event has been handled.
     *
     * @return the response, equal to the one the non-streamed call returns
     * @throws ModelException of kind {@code INVALID_RESPONSE} when the events did not make a
     *     valid reply
     */
    ModelResponse finish();
}
