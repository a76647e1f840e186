package dev.shelly.providers.openai;

import dev.shelly.providers.internal.WireSupport;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.async.ByteArrayFeeder;

/**
 * Reads the chunks of one Chat Completions stream from their bytes, with one non-blocking Jackson
 * parser for the whole stream: a chunk costs no tree, no parser and no string beyond the text it
 * carries. It reads what {@link ChatCompletionsStreamDecoder} uses of a chunk (id, model, the
 * choice at index 0 with its text, reasoning, refusal, tool call fragments and finish reason, the
 * usage) and declines every other shape: an error, a second choice at index 0, a value of a
 * type the decoder would not take as it is (a number that is not an int, arguments that are not
 * a string), anything that is not exactly one JSON object. A declined chunk is read as a tree,
 * as before; declining has no effect, since the decoder uses a chunk only once it is read whole.
 *
 * <p>A field that comes twice counts as its last value, as in a tree: each field's value
 * replaces what the field held.
 */
final class ChunkReader {
    /** Declines a chunk; thrown without a stack. */
    private static final class Decline extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Decline() {
            super("declined", null, false, false);
        }
    }

    private static final Decline DECLINE = new Decline();

    /** One tool call fragment. */
    static final class Fragment {
        /** The fragment's index, or -1 when it has none that is a number. */
        int index;
        String id;
        String name;
        String arguments;

        private void reset() {
            index = -1;
            id = null;
            name = null;
            arguments = "";
        }
    }

    /** One choice. */
    static final class Choice {
        int index;
        String reasoningContent;
        String reasoning;
        String content;
        String refusal;
        String finishReason;
        final List<Fragment> fragments = new ArrayList<>();
        int fragmentCount;

        private void reset() {
            index = 0;
            resetDelta();
            finishReason = null;
        }

        private void resetDelta() {
            reasoningContent = null;
            reasoning = null;
            content = null;
            refusal = null;
            fragmentCount = 0;
        }

        private Fragment nextFragment() {
            if (fragmentCount == fragments.size()) {
                fragments.add(new Fragment());
            }
            Fragment f = fragments.get(fragmentCount++);
            f.reset();
            return f;
        }
    }

    private JsonParser parser;

    // What the last chunk read holds.
    String id;
    String model;
    /** The choice at index 0, or null when the chunk has none. */
    Choice choice;
    boolean usage;
    long promptTokens;
    long completionTokens;
    long totalTokens;
    long cachedTokens;
    long reasoningTokens;

    private Choice reading = new Choice();
    private Choice taken = new Choice();
    private boolean wantId;
    private boolean wantModel;

    /**
     * Reads one chunk.
     *
     * @param data the buffer holding the chunk
     * @param offset where the chunk starts in it
     * @param length the chunk's length in bytes
     * @param withId whether to read the id (the decoder has none yet)
     * @param withModel whether to read the model
     * @return true when the chunk was read; false when it is declined, and nothing of it is kept
     */
    boolean read(byte[] data, int offset, int length, boolean withId, boolean withModel) {
        wantId = withId;
        wantModel = withModel;
        if (parser == null) {
            parser = WireSupport.JSON.tokenStreamFactory().createNonBlockingByteArrayParser(ObjectReadContext.empty());
        }
        try {
            ((ByteArrayFeeder) parser.nonBlockingInputFeeder()).feedInput(data, offset, offset + length);
            if (parser.nextToken() == JsonToken.START_OBJECT) {
                chunk();
                if (parser.nextToken() == JsonToken.NOT_AVAILABLE) {
                    return true;
                }
            }
        } catch (JacksonException | Decline e) {
            // declined below
        }
        parser.close(); // a parser that stopped inside a chunk cannot go on with the next
        parser = null;
        return false;
    }

    /**
     * Ends the stream: the parser goes back to Jackson, its buffers to be reused and the field
     * names it learnt to be known to the next stream's parser.
     */
    void close() {
        if (parser != null) {
            parser.close();
            parser = null;
        }
    }

    private void chunk() {
        id = null;
        model = null;
        choice = null;
        usage = false;
        while (next() == JsonToken.PROPERTY_NAME) {
            String field = parser.currentName();
            JsonToken value = next();
            switch (field) {
                case "error" -> {
                    if (value != JsonToken.VALUE_NULL) {
                        throw DECLINE;
                    }
                }
                case "id" -> id = wantId ? string(value) : skip(value);
                case "model" -> model = wantModel ? string(value) : skip(value);
                case "choices" -> {
                    choice = null;
                    if (value == JsonToken.START_ARRAY) {
                        while (next() != JsonToken.END_ARRAY) {
                            choice();
                        }
                    } else {
                        skip(value);
                    }
                }
                case "usage" -> {
                    usage = value == JsonToken.START_OBJECT;
                    if (usage) {
                        usage();
                    } else {
                        skip(value);
                    }
                }
                default -> skip(value);
            }
        }
    }

    /** A choice, its start read. */
    private void choice() {
        if (parser.currentToken() != JsonToken.START_OBJECT) {
            throw DECLINE;
        }
        Choice c = reading;
        c.reset();
        while (next() == JsonToken.PROPERTY_NAME) {
            String field = parser.currentName();
            JsonToken value = next();
            switch (field) {
                case "index" -> c.index = integer(value);
                case "delta" -> {
                    c.resetDelta();
                    if (value == JsonToken.START_OBJECT) {
                        delta(c);
                    } else if (value != JsonToken.VALUE_NULL) {
                        throw DECLINE;
                    }
                }
                case "finish_reason" -> c.finishReason = string(value);
                default -> skip(value);
            }
        }
        if (c.index == 0) {
            if (choice != null) {
                throw DECLINE; // a second choice at index 0: the tree reads it
            }
            reading = taken;
            taken = c;
            choice = c;
        }
    }

    private void delta(Choice c) {
        while (next() == JsonToken.PROPERTY_NAME) {
            String field = parser.currentName();
            JsonToken value = next();
            switch (field) {
                case "reasoning_content" -> c.reasoningContent = string(value);
                case "reasoning" -> c.reasoning = string(value);
                case "content" -> c.content = string(value);
                case "refusal" -> c.refusal = string(value);
                case "tool_calls" -> {
                    c.fragmentCount = 0;
                    if (value == JsonToken.START_ARRAY) {
                        while (next() != JsonToken.END_ARRAY) {
                            fragment(c.nextFragment());
                        }
                    } else {
                        skip(value);
                    }
                }
                default -> skip(value);
            }
        }
    }

    /** A tool call fragment, its start read. */
    private void fragment(Fragment f) {
        if (parser.currentToken() != JsonToken.START_OBJECT) {
            throw DECLINE;
        }
        while (next() == JsonToken.PROPERTY_NAME) {
            String field = parser.currentName();
            JsonToken value = next();
            switch (field) {
                case "index" -> {
                    if (value == JsonToken.VALUE_NUMBER_INT) {
                        f.index = integer(value);
                    } else if (value == JsonToken.VALUE_NUMBER_FLOAT) {
                        throw DECLINE;
                    } else {
                        f.index = -1;
                        skip(value);
                    }
                }
                case "id" -> f.id = string(value);
                case "function" -> {
                    f.name = null;
                    f.arguments = "";
                    if (value == JsonToken.START_OBJECT) {
                        function(f);
                    } else {
                        skip(value);
                    }
                }
                default -> skip(value);
            }
        }
    }

    private void function(Fragment f) {
        while (next() == JsonToken.PROPERTY_NAME) {
            String field = parser.currentName();
            JsonToken value = next();
            switch (field) {
                case "name" -> f.name = string(value);
                case "arguments" -> {
                    if (value == JsonToken.VALUE_STRING) {
                        f.arguments = parser.getString();
                    } else if (value == JsonToken.VALUE_NULL) {
                        f.arguments = "";
                    } else {
                        throw DECLINE; // arguments as JSON: the tree writes them out
                    }
                }
                default -> skip(value);
            }
        }
    }

    private void usage() {
        promptTokens = -1;
        completionTokens = -1;
        totalTokens = -1;
        cachedTokens = -1;
        reasoningTokens = -1;
        while (next() == JsonToken.PROPERTY_NAME) {
            String field = parser.currentName();
            JsonToken value = next();
            switch (field) {
                case "prompt_tokens" -> promptTokens = count(value);
                case "completion_tokens" -> completionTokens = count(value);
                case "total_tokens" -> totalTokens = count(value);
                case "prompt_tokens_details" -> cachedTokens = detail(value, "cached_tokens");
                case "completion_tokens_details" -> reasoningTokens = detail(value, "reasoning_tokens");
                default -> skip(value);
            }
        }
    }

    /** One count of a details object, or -1. */
    private long detail(JsonToken value, String name) {
        long result = -1;
        if (value != JsonToken.START_OBJECT) {
            skip(value);
            return result;
        }
        while (next() == JsonToken.PROPERTY_NAME) {
            String field = parser.currentName();
            JsonToken v = next();
            if (field.equals(name)) {
                result = count(v);
            } else {
                skip(v);
            }
        }
        return result;
    }

    /** A count as {@code WireSupport.count} reads it (at least 0), or -1 when it is not a number. */
    private long count(JsonToken value) {
        if (value == JsonToken.VALUE_NUMBER_INT) {
            JsonParser.NumberType type = parser.getNumberType();
            if (type != JsonParser.NumberType.INT && type != JsonParser.NumberType.LONG) {
                throw DECLINE;
            }
            return Math.max(0, parser.getLongValue());
        }
        if (value == JsonToken.VALUE_NUMBER_FLOAT) {
            throw DECLINE;
        }
        skip(value);
        return -1;
    }

    /** An int, as the tree reads it; anything else is declined. */
    private int integer(JsonToken value) {
        if (value != JsonToken.VALUE_NUMBER_INT || parser.getNumberType() != JsonParser.NumberType.INT) {
            throw DECLINE;
        }
        return parser.getIntValue();
    }

    /** A string value, or null for any other value (skipped). */
    private String string(JsonToken value) {
        if (value == JsonToken.VALUE_STRING) {
            return parser.getString();
        }
        return skip(value);
    }

    /** Skips a value, its start read; returns null. */
    private String skip(JsonToken value) {
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

    /** The next token; a chunk that ends before its object does is declined. */
    private JsonToken next() {
        JsonToken t = parser.nextToken();
        if (t == null || t == JsonToken.NOT_AVAILABLE) {
            throw DECLINE;
        }
        return t;
    }
}
