package dev.shelly.providers;

import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.provider.spi.SseEvent;
import dev.shelly.provider.spi.StreamDecoder;
import dev.shelly.provider.spi.internal.ByteEventDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Feeds a stream decoder its events one by one, as text ({@link SseEvent}) or as bytes
 * ({@link ByteEventDecoder}), so that a test can hold both paths to the same output. The bytes
 * come in one buffer for the whole stream, with stale bytes around each event's data, as the
 * event reader keeps it.
 */
public final class DecoderFeed {
    private final StreamDecoder decoder;
    private final boolean bytes;
    private byte[] buffer = new byte[16];

    /**
     * A feed.
     *
     * @param decoder the decoder
     * @param bytes whether events go in as bytes (the decoder must be a {@link ByteEventDecoder})
     */
    public DecoderFeed(StreamDecoder decoder, boolean bytes) {
        this.decoder = decoder;
        this.bytes = bytes;
    }

    /**
     * Gives the decoder one event.
     *
     * @param name the event's name
     * @param data its data
     * @return whether the decoder says the stream ended with it
     */
    public boolean feed(String name, String data) {
        if (!bytes) {
            SseEvent event = new SseEvent(name, data);
            decoder.onEvent(event);
            return decoder.isEnd(event);
        }
        byte[] b = data.getBytes(StandardCharsets.UTF_8);
        if (b.length + 3 > buffer.length) {
            buffer = new byte[b.length * 2 + 3];
        }
        Arrays.fill(buffer, (byte) '}');
        System.arraycopy(b, 0, buffer, 3, b.length);
        ByteEventDecoder decoding = (ByteEventDecoder) decoder;
        decoding.onEvent(name, buffer, 3, b.length);
        return decoding.isEnd(name, buffer, 3, b.length);
    }

    /**
     * Everything a reply says, on one line, to compare the two paths' replies.
     *
     * @param r the reply
     * @return its parts, usage, stop reasons, model, id and provider
     */
    public static String describe(ModelResponse r) {
        return r.message().parts() + " " + r.usage() + " " + r.stopReason() + " " + r.providerStopReason() + " "
                + r.model() + " " + r.responseId() + " " + r.provider();
    }
}
