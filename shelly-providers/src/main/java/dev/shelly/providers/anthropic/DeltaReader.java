package dev.shelly.providers.anthropic;

import dev.shelly.providers.internal.EventTokens;
import tools.jackson.core.JsonToken;

/**
 * Reads the {@code content_block_delta} events of one Anthropic stream from their bytes, with one
 * non-blocking Jackson parser for the whole stream: such an event, nearly every event of a reply,
 * costs no tree, no parser and no string beyond the text it carries. It reads what
 * {@link AnthropicStreamDecoder} uses of it (the block's index, the delta's type and its text,
 * partial JSON, thinking or signature) and declines every other event and shape: another event
 * type, an index that is not an int, a delta that is not an object or of a type the decoder does
 * not know, anything that is not exactly one JSON object. A declined event is read as a tree, as
 * before; declining has no effect, since the decoder uses an event only once it is read whole.
 *
 * <p>A field that comes twice counts as its last value, as in a tree.
 */
final class DeltaReader {
    private final EventTokens tokens = new EventTokens(this::event);

    // What the last event read holds.
    int index;
    String deltaType;
    String text;
    String partialJson;
    String thinking;
    String signature;

    /**
     * Reads one event's data.
     *
     * @param data the buffer holding the data
     * @param offset where the data starts in it
     * @param length the data's length in bytes
     * @return true when it was a {@code content_block_delta} read whole; false when it is
     *     declined, and nothing of it is to be used
     */
    boolean read(byte[] data, int offset, int length) {
        return tokens.read(data, offset, length);
    }

    /** Ends the stream: the parser goes back to Jackson. */
    void close() {
        tokens.close();
    }

    /** An event, its start read: a content_block_delta with an index and a delta, or declined. */
    private void event() {
        String type = null;
        boolean indexed = false;
        boolean withDelta = false;
        while (tokens.next() == JsonToken.PROPERTY_NAME) {
            String field = tokens.name();
            JsonToken value = tokens.next();
            switch (field) {
                case "type" -> type = tokens.string(value);
                case "index" -> {
                    index = tokens.integer(value);
                    indexed = true;
                }
                case "delta" -> {
                    if (value != JsonToken.START_OBJECT) {
                        throw EventTokens.decline();
                    }
                    delta();
                    withDelta = true;
                }
                default -> tokens.skip(value);
            }
        }
        if (!"content_block_delta".equals(type) || !indexed || !withDelta) {
            throw EventTokens.decline();
        }
    }

    private void delta() {
        deltaType = null;
        text = null;
        partialJson = null;
        thinking = null;
        signature = null;
        while (tokens.next() == JsonToken.PROPERTY_NAME) {
            String field = tokens.name();
            JsonToken value = tokens.next();
            switch (field) {
                case "type" -> deltaType = tokens.string(value);
                case "text" -> text = tokens.string(value);
                case "partial_json" -> partialJson = tokens.string(value);
                case "thinking" -> thinking = tokens.string(value);
                case "signature" -> signature = tokens.string(value);
                default -> tokens.skip(value);
            }
        }
        boolean known = deltaType != null && switch (deltaType) {
            case "text_delta", "input_json_delta", "thinking_delta", "signature_delta" -> true;
            default -> false;
        };
        if (!known) {
            throw EventTokens.decline();
        }
    }
}
