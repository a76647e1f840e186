package dev.shelly.provider.spi.internal;

/**
 * A {@link dev.shelly.provider.spi.StreamDecoder} that also reads an event's data as the UTF-8
 * bytes that arrived, so that an event costs no string. When a call reads its stream on the
 * calling thread (a virtual thread), each event reaches these methods instead of
 * {@link dev.shelly.provider.spi.StreamDecoder#onEvent} and
 * {@link dev.shelly.provider.spi.StreamDecoder#isEnd}; they must do exactly what those do with
 * {@code new SseEvent(event, new String(data, offset, length, UTF_8))}.
 *
 * <p>The bytes are the reader's buffer: valid during the call only, never to be changed or kept.
 */
public interface ByteEventDecoder {

    /**
     * Handles the next event, as {@link dev.shelly.provider.spi.StreamDecoder#onEvent} does.
     *
     * @param event the event's name; {@code message} when the server named none
     * @param data the buffer holding the event's data lines, joined with {@code \n}
     * @param offset where the data starts in it
     * @param length the data's length in bytes
     */
    void onEvent(String event, byte[] data, int offset, int length);

    /**
     * Whether this event ends the stream, as {@link dev.shelly.provider.spi.StreamDecoder#isEnd}
     * says; asked after {@link #onEvent} has handled it.
     *
     * @param event the event's name
     * @param data the buffer holding the event's data
     * @param offset where the data starts in it
     * @param length the data's length in bytes
     * @return true for the provider's last event
     */
    boolean isEnd(String event, byte[] data, int offset, int length);
}
