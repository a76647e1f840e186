package dev.shelly.providers.openai;

import dev.shelly.providers.internal.EventTokens;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;

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

    private final EventTokens tokens = new EventTokens(this::chunk);

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
        return tokens.read(data, offset, length);
    }

    /**
     * Ends the stream: the parser goes back to Jackson, its buffers to be reused and the field
     * names it learnt to be known to the next stream's parser.
     */
    void close() {
        tokens.close();
    }

    private void chunk() {
        id = null;
        model = null;
        choice = null;
        usage = false;
        while (tokens.next() == JsonToken.PROPERTY_NAME) {
            String field = tokens.name();
            JsonToken value = tokens.next();
            switch (field) {
                case "error" -> {
                    if (value != JsonToken.VALUE_NULL) {
                        throw EventTokens.decline();
                    }
                }
                case "id" -> id = wantId ? tokens.string(value) : tokens.skip(value);
                case "model" -> model = wantModel ? tokens.string(value) : tokens.skip(value);
                case "choices" -> {
                    choice = null;
                    if (value == JsonToken.START_ARRAY) {
                        while (tokens.next() != JsonToken.END_ARRAY) {
                            choice();
                        }
                    } else {
                        tokens.skip(value);
                    }
                }
                case "usage" -> {
                    usage = value == JsonToken.START_OBJECT;
                    if (usage) {
                        usage();
                    } else {
                        tokens.skip(value);
                    }
                }
                default -> tokens.skip(value);
            }
        }
    }

    /** A choice, its start read. */
    private void choice() {
        if (tokens.parser().currentToken() != JsonToken.START_OBJECT) {
            throw EventTokens.decline();
        }
        Choice c = reading;
        c.reset();
        while (tokens.next() == JsonToken.PROPERTY_NAME) {
            String field = tokens.name();
            JsonToken value = tokens.next();
            switch (field) {
                case "index" -> c.index = tokens.integer(value);
                case "delta" -> {
                    c.resetDelta();
                    if (value == JsonToken.START_OBJECT) {
                        delta(c);
                    } else if (value != JsonToken.VALUE_NULL) {
                        throw EventTokens.decline();
                    }
                }
                case "finish_reason" -> c.finishReason = tokens.string(value);
                default -> tokens.skip(value);
            }
        }
        if (c.index == 0) {
            if (choice != null) {
                throw EventTokens.decline(); // a second choice at index 0: the tree reads it
            }
            reading = taken;
            taken = c;
            choice = c;
        }
    }

    private void delta(Choice c) {
        while (tokens.next() == JsonToken.PROPERTY_NAME) {
            String field = tokens.name();
            JsonToken value = tokens.next();
            switch (field) {
                case "reasoning_content" -> c.reasoningContent = tokens.string(value);
                case "reasoning" -> c.reasoning = tokens.string(value);
                case "content" -> c.content = tokens.string(value);
                case "refusal" -> c.refusal = tokens.string(value);
                case "tool_calls" -> {
                    c.fragmentCount = 0;
                    if (value == JsonToken.START_ARRAY) {
                        while (tokens.next() != JsonToken.END_ARRAY) {
                            fragment(c.nextFragment());
                        }
                    } else {
                        tokens.skip(value);
                    }
                }
                default -> tokens.skip(value);
            }
        }
    }

    /** A tool call fragment, its start read. */
    private void fragment(Fragment f) {
        if (tokens.parser().currentToken() != JsonToken.START_OBJECT) {
            throw EventTokens.decline();
        }
        while (tokens.next() == JsonToken.PROPERTY_NAME) {
            String field = tokens.name();
            JsonToken value = tokens.next();
            switch (field) {
                case "index" -> {
                    if (value == JsonToken.VALUE_NUMBER_INT) {
                        f.index = tokens.integer(value);
                    } else if (value == JsonToken.VALUE_NUMBER_FLOAT) {
                        throw EventTokens.decline();
                    } else {
                        f.index = -1;
                        tokens.skip(value);
                    }
                }
                case "id" -> f.id = tokens.string(value);
                case "function" -> {
                    f.name = null;
                    f.arguments = "";
                    if (value == JsonToken.START_OBJECT) {
                        function(f);
                    } else {
                        tokens.skip(value);
                    }
                }
                default -> tokens.skip(value);
            }
        }
    }

    private void function(Fragment f) {
        while (tokens.next() == JsonToken.PROPERTY_NAME) {
            String field = tokens.name();
            JsonToken value = tokens.next();
            switch (field) {
                case "name" -> f.name = tokens.string(value);
                case "arguments" -> {
                    if (value == JsonToken.VALUE_STRING) {
                        f.arguments = tokens.parser().getString();
                    } else if (value == JsonToken.VALUE_NULL) {
                        f.arguments = "";
                    } else {
                        throw EventTokens.decline(); // arguments as JSON: the tree writes them out
                    }
                }
                default -> tokens.skip(value);
            }
        }
    }

    private void usage() {
        promptTokens = -1;
        completionTokens = -1;
        totalTokens = -1;
        cachedTokens = -1;
        reasoningTokens = -1;
        while (tokens.next() == JsonToken.PROPERTY_NAME) {
            String field = tokens.name();
            JsonToken value = tokens.next();
            switch (field) {
                case "prompt_tokens" -> promptTokens = count(value);
                case "completion_tokens" -> completionTokens = count(value);
                case "total_tokens" -> totalTokens = count(value);
                case "prompt_tokens_details" -> cachedTokens = detail(value, "cached_tokens");
                case "completion_tokens_details" -> reasoningTokens = detail(value, "reasoning_tokens");
                default -> tokens.skip(value);
            }
        }
    }

    /** One count of a details object, or -1. */
    private long detail(JsonToken value, String name) {
        long result = -1;
        if (value != JsonToken.START_OBJECT) {
            tokens.skip(value);
            return result;
        }
        while (tokens.next() == JsonToken.PROPERTY_NAME) {
            String field = tokens.name();
            JsonToken v = tokens.next();
            if (field.equals(name)) {
                result = count(v);
            } else {
                tokens.skip(v);
            }
        }
        return result;
    }

    /** A count as {@code WireSupport.count} reads it (at least 0), or -1 when it is not a number. */
    private long count(JsonToken value) {
        if (value == JsonToken.VALUE_NUMBER_INT) {
            JsonParser.NumberType type = tokens.parser().getNumberType();
            if (type != JsonParser.NumberType.INT && type != JsonParser.NumberType.LONG) {
                throw EventTokens.decline();
            }
            return Math.max(0, tokens.parser().getLongValue());
        }
        if (value == JsonToken.VALUE_NUMBER_FLOAT) {
            throw EventTokens.decline();
        }
        tokens.skip(value);
        return -1;
    }
}
