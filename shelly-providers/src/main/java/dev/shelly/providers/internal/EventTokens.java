package dev.shelly.providers.internal;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.async.ByteArrayFeeder;

/**
 * The tokens of a stream's events, read from each event's bytes with one non-blocking Jackson
 * parser for the whole stream, for a reader that takes the everyday events of a provider's
 * stream without a tree and declines the others (they are then read as a tree). Internal: not
 * part of Shelly's API.
 */
public final class EventTokens {
    /** Declines an event; thrown without a stack. */
    private static final class Decline extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Decline() {
            super("declined", null, false, false);
        }
    }

    private static final Decline DECLINE = new Decline();

    private final Runnable event;
    private JsonParser parser;

    /**
     * Creates the tokens of one stream.
     *
     * @param event reads one event, its {@code START_OBJECT} read, up to its {@code END_OBJECT},
     *     with {@link #next}, {@link #string}, {@link #skip} and {@link #integer}; throws
     *     {@link #decline()} to decline it
     */
    public EventTokens(Runnable event) {
        this.event = event;
    }

    /**
     * Reads one event's data.
     *
     * @param data the buffer holding the data
     * @param offset where the data starts in it
     * @param length the data's length in bytes
     * @return true when the event was read whole; false when it is declined (it is not exactly
     *     one JSON object, or the reader declined it), and nothing of it is to be used
     */
    public boolean read(byte[] data, int offset, int length) {
        if (parser == null) {
            parser = WireSupport.JSON.tokenStreamFactory().createNonBlockingByteArrayParser(ObjectReadContext.empty());
        }
        try {
            ((ByteArrayFeeder) parser.nonBlockingInputFeeder()).feedInput(data, offset, offset + length);
            if (parser.nextToken() == JsonToken.START_OBJECT) {
                event.run();
                if (parser.nextToken() == JsonToken.NOT_AVAILABLE) {
                    return true;
                }
            }
        } catch (JacksonException | Decline e) {
            // declined below
        }
        parser.close(); // a parser that stopped inside an event cannot go on with the next
        parser = null;
        return false;
    }

    /**
     * Ends the stream: the parser goes back to Jackson, its buffers to be reused and the field
     * names it learnt to be known to the next stream's parser.
     */
    public void close() {
        if (parser != null) {
            parser.close();
            parser = null;
        }
    }

    /**
     * The exception that declines the event being read.
     *
     * @return it, to be thrown
     */
    public static RuntimeException decline() {
        return DECLINE;
    }

    /**
     * The parser, positioned on the token last read.
     *
     * @return it
     */
    public JsonParser parser() {
        return parser;
    }

    /**
     * The name of the property whose name was just read.
     *
     * @return it
     */
    public String name() {
        return parser.currentName();
    }

    /**
     * The next token; an event that ends before its object does is declined.
     *
     * @return the token
     */
    public JsonToken next() {
        JsonToken t = parser.nextToken();
        if (t == null || t == JsonToken.NOT_AVAILABLE) {
            throw DECLINE;
        }
        return t;
    }

    /**
     * A string value, or null for any other value (skipped), as {@link WireSupport#text} reads it.
     *
     * @param value the value's token, just read
     * @return the string, or null
     */
    public String string(JsonToken value) {
        if (value == JsonToken.VALUE_STRING) {
            return parser.getString();
        }
        return skip(value);
    }

    /**
     * An int, as a tree reads it; any other value is declined.
     *
     * @param value the value's token, just read
     * @return the int
     */
    public int integer(JsonToken value) {
        if (value != JsonToken.VALUE_NUMBER_INT || parser.getNumberType() != JsonParser.NumberType.INT) {
            throw DECLINE;
        }
        return parser.getIntValue();
    }

    /**
     * Skips a value.
     *
     * @param value the value's token, just read
     * @return null
     */
    public String skip(JsonToken value) {
        if (value == JsonToken.START_OBJECT || value == JsonToken.START_ARRAY) {
            int depth = 1;
            while (depth > 0) {
                JsonToken t = next();
                if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                    depth++;
                } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                    depth--;
                }
            }
        }
        return null;
    }
}
