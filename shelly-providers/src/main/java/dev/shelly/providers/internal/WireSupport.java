package dev.shelly.providers.internal;

import dev.shelly.chats.Image;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.Usage;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.util.ByteArrayBuilder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * JSON and message helpers the wire formats share. Internal: not part of Shelly's API.
 */
public final class WireSupport {
    /** The one mapper of the providers; Jackson 3 mappers are immutable and thread-safe. */
    public static final JsonMapper JSON = JsonMapper.builder().build();

    private WireSupport() {}

    /**
     * Writes a JSON document with a generator.
     *
     * @param sizeHint the expected size in bytes
     * @param writer writes the document
     * @return the document's UTF-8 bytes
     */
    public static byte[] write(int sizeHint, GeneratorWriter writer) {
        ByteArrayBuilder out = new ByteArrayBuilder(sizeHint);
        try (JsonGenerator gen = JSON.createGenerator(out)) {
            writer.write(gen);
        }
        return out.toByteArray();
    }

    /** Writes into a generator. */
    @FunctionalInterface
    public interface GeneratorWriter {
        /**
         * Writes the document.
         *
         * @param gen the generator
         */
        void write(JsonGenerator gen);
    }

    /** The error types and codes that mean the request does not fit the model's context window. */
    private static final java.util.Set<String> OVERFLOW_CODES = java.util.Set.of("context_length_exceeded",
            "exceed_context_size_error");
    /** Words of the messages that say so, in lower case, whatever shape the error has. */
    private static final List<String> OVERFLOW_WORDS = List.of("context length", "context window", "context size",
            "context limit", "n_ctx", "maximum prompt length", "prompt is too long", "input is too long",
            "input token count");

    /**
     * Whether an error says the request does not fit the model's context window. Every format
     * asks it, whatever error shape it expects, since a compatible server may answer in the
     * other API's shape: llama.cpp's Anthropic-compatible endpoint sends OpenAI's
     * {@code exceed_context_size_error}.
     *
     * @param type the error's type, or null
     * @param code the error's code, or null
     * @param message the error's message, or null
     * @return true for a context overflow
     */
    public static boolean contextOverflow(String type, String code, String message) {
        if ((type != null && OVERFLOW_CODES.contains(type)) || (code != null && OVERFLOW_CODES.contains(code))) {
            return true;
        }
        if (message == null) {
            return false;
        }
        String lower = message.toLowerCase(java.util.Locale.ROOT);
        for (String w : OVERFLOW_WORDS) {
            if (lower.contains(w)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Parses a reply body, or fails with an invalid-response error naming the provider.
     *
     * @param provider the provider's name
     * @param body the body
     * @param what what the body should be, for the message
     * @return the JSON object
     */
    public static JsonNode parseObject(String provider, byte[] body, String what) {
        JsonNode node;
        try {
            node = JSON.readTree(body);
        } catch (JacksonException e) {
            throw invalid(provider, what + " is not valid JSON: " + e.getOriginalMessage(), e);
        }
        if (node == null || !node.isObject()) {
            throw invalid(provider, what + " is not a JSON object", null);
        }
        return node;
    }

    /**
     * Parses a JSON text leniently: the tree, or null when the text is not valid JSON.
     *
     * @param text the text
     * @return the tree, or null
     */
    public static JsonNode tryParse(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return JSON.readTree(text);
        } catch (JacksonException e) {
            return null;
        }
    }

    /**
     * An invalid-response failure.
     *
     * @param provider the provider's name
     * @param message what was wrong
     * @param cause the underlying failure, or null
     * @return the exception
     */
    public static ModelException invalid(String provider, String message, Throwable cause) {
        return ModelException.builder(ModelException.Kind.INVALID_RESPONSE).provider(provider)
                .providerMessage(message).cause(cause).build();
    }

    /**
     * A string field, or null when absent, null or not a string.
     *
     * @param node the object
     * @param field the field
     * @return the text, or null
     */
    public static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v != null && v.isString() ? v.stringValue() : null;
    }

    /**
     * A numeric field as a non-negative long, or null when absent or not a number.
     *
     * @param node the object
     * @param field the field
     * @return the number, or null
     */
    public static Long count(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v != null && v.isNumber() ? Math.max(0, v.asLong()) : null;
    }

    /**
     * Tool call arguments as the model sent them, made canonical: valid JSON is re-serialised
     * compactly (so a streamed reply equals the non-streamed one); blank becomes {@code {}};
     * anything else is kept as it is, so the tool box can report the malformed JSON to the model.
     *
     * @param raw the arguments text
     * @return the arguments for a {@link dev.shelly.chats.ToolCall}
     */
    public static String canonicalArguments(String raw) {
        if (raw == null || raw.isBlank()) {
            return "{}";
        }
        JsonNode node = tryParse(raw);
        return node == null ? raw : compact(node);
    }

    /**
     * A JSON value as compact JSON text, fields in their order.
     *
     * @param node the value
     * @return the text
     */
    public static String compact(JsonNode node) {
        return node.toString();
    }

    /**
     * Writes a tool's fields inside an open object: {@code name}, {@code description} (when not
     * empty) and its input schema, which must be a JSON object, under the given name.
     *
     * @param gen the generator, inside the tool's object
     * @param tool the tool
     * @param schemaField the schema's field name: {@code input_schema} or {@code parameters}
     * @param memo remembers the schemas already checked
     */
    public static void writeToolFields(JsonGenerator gen, ToolDefinition tool, String schemaField, JsonObjectMemo memo) {
        if (!memo.isJsonObject(tool.inputSchema())) {
            throw new IllegalArgumentException("tool '" + tool.name() + "': inputSchema is not a JSON object");
        }
        gen.writeStringProperty("name", tool.name());
        if (!tool.description().isEmpty()) {
            gen.writeStringProperty("description", tool.description());
        }
        gen.writeName(schemaField);
        gen.writeRawValue(tool.inputSchema().strip());
    }

    /**
     * Writes the sampling options that are set: {@code temperature}, then nucleus sampling under
     * the API's name for it.
     *
     * @param gen the generator, inside an object
     * @param options the call's options
     * @param topPField {@code top_p} or {@code topP}
     */
    public static void writeSampling(JsonGenerator gen, dev.shelly.modeladapter.ModelOptions options, String topPField) {
        if (options.temperature() != null) {
            gen.writeName("temperature");
            gen.writeNumber(options.temperature());
        }
        if (options.topP() != null) {
            gen.writeName(topPField);
            gen.writeNumber(options.topP());
        }
    }

    /**
     * Writes a list of strings as an array field, when the list has any.
     *
     * @param gen the generator, inside an object
     * @param field the field's name
     * @param values the strings, or null
     */
    public static void writeStrings(JsonGenerator gen, String field, List<String> values) {
        if (values == null || values.isEmpty()) {
            return;
        }
        gen.writeName(field);
        gen.writeStartArray();
        for (String v : values) {
            gen.writeString(v);
        }
        gen.writeEndArray();
    }

    /**
     * A count that may be missing, as zero.
     *
     * @param count the count, or null
     * @return the count, or 0
     */
    public static long orZero(Long count) {
        return count == null ? 0 : count;
    }

    /**
     * An option the provider cannot take: a failure of kind {@code INVALID_REQUEST}, never
     * retried, raised before any HTTP.
     *
     * @param provider the provider's name
     * @param message what cannot be sent, and what can
     * @return the exception
     */
    public static ModelException refusal(String provider, String message) {
        return ModelException.builder(ModelException.Kind.INVALID_REQUEST).provider(provider)
                .providerMessage(message).build();
    }

    /**
     * The checks both OpenAI formats (chat completions and responses) make of the options they
     * share: a temperature within 0 to 2 (when the provider's ranges are checked), no cache
     * ttl, and a JSON response format whose schema is one JSON object.
     *
     * @param provider the provider's name
     * @param options the call's options
     * @param checkRanges whether the temperature's range is checked
     * @param memo remembers the schemas already checked
     * @throws ModelException of kind {@code INVALID_REQUEST} for the first option refused
     */
    public static void checkOpenAiOptions(String provider, dev.shelly.modeladapter.ModelOptions options,
            boolean checkRanges, JsonObjectMemo memo) {
        if (checkRanges && options.temperature() != null && options.temperature() > 2) {
            throw refusal(provider, "temperature must be between 0 and 2, was " + options.temperature());
        }
        if (options.cache() != null && options.cache().ttl() != null) {
            throw refusal(provider, "a cache ttl cannot be set: this provider caches prompts on its own and takes no ttl");
        }
        if (options.responseFormat() instanceof dev.shelly.modeladapter.ResponseFormat.JsonSchema f) {
            checkSchema(provider, f, memo);
        }
    }

    /**
     * Checks that a JSON response format's schema is one JSON object.
     *
     * @param provider the provider's name
     * @param format the format
     * @param memo remembers the schemas already checked
     * @throws ModelException of kind {@code INVALID_REQUEST} when it is not
     */
    public static void checkSchema(String provider, dev.shelly.modeladapter.ResponseFormat.JsonSchema format,
            JsonObjectMemo memo) {
        if (!memo.isJsonObject(format.schema())) {
            throw refusal(provider, "ResponseFormat.jsonSchema '" + format.name() + "': the schema is not a JSON object");
        }
    }

    /**
     * Whether a text is exactly one JSON object, checked by streaming through it (no tree is
     * built), so that it can be written raw.
     *
     * @param text the text
     * @return true for a single, valid JSON object
     */
    public static boolean isJsonObject(String text) {
        if (text == null || text.isBlank()) {
            return false;
        }
        try (JsonParser p = JSON.createParser(text)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return false;
            }
            p.skipChildren();
            return p.nextToken() == null;
        } catch (JacksonException e) {
            return false;
        }
    }

    /**
     * A data URL ({@code data:image/png;base64,...}) split into media type and base64 data.
     *
     * @param url the URL
     * @return {media type, data}, or null when it is not a base64 data URL
     */
    public static String[] splitDataUrl(String url) {
        if (!url.regionMatches(true, 0, "data:", 0, 5)) {
            return null;
        }
        int comma = url.indexOf(',');
        if (comma < 0) {
            return null;
        }
        String meta = url.substring(5, comma);
        if (!meta.endsWith(";base64")) {
            return null;
        }
        String mediaType = meta.substring(0, meta.length() - ";base64".length());
        return new String[] {mediaType.isEmpty() ? "application/octet-stream" : mediaType, url.substring(comma + 1)};
    }

    /**
     * An image as a URL: its own URL, or a base64 data URL for bytes.
     *
     * @param image the image
     * @return the URL
     */
    public static String imageUrl(Image image) {
        return image.isUrl() ? image.url() : "data:" + image.mediaType() + ";base64," + image.base64();
    }

    /**
     * Builds a response around a reply from sender {@code provider}.
     *
     * @param provider the provider's name
     * @param parts the content
     * @param model the model the provider reports
     * @param id the provider's id of the reply
     * @param stop the neutral stop reason, or null to derive it from the parts
     * @param providerStop the provider's own stop reason
     * @param usage the usage, or null when the provider sent none
     * @return the response
     */
    public static ModelResponse reply(String provider, List<Part> parts, String model, String id, StopReason stop,
            String providerStop, Usage usage) {
        return new ModelResponse(new Message(provider, Role.ASSISTANT, parts), usage, stop, providerStop, model, id,
                provider);
    }

    /**
     * A tool call's id as an API with stricter ids than the one that made it accepts: letters,
     * digits, {@code _} and {@code -}, at most {@code maxLength} characters (Anthropic refuses
     * other characters, Chat Completions ids longer than 40). An id that fits is sent as it is;
     * one that does not becomes {@code call_} and a hash of it, the same for a call and its result.
     *
     * @param id the id as the chat holds it
     * @param maxLength the longest id the API takes, at least 21
     * @return the id to send
     */
    public static String wireId(String id, int maxLength) {
        if (id.length() <= maxLength && PORTABLE_ID.matcher(id).matches()) {
            return id;
        }
        try {
            byte[] hash = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(id.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return "call_" + java.util.HexFormat.of().formatHex(hash, 0, Math.min(16, (maxLength - 5) / 2));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static final java.util.regex.Pattern PORTABLE_ID = java.util.regex.Pattern.compile("[A-Za-z0-9_-]+");

    /**
     * Whether a thinking part's opaque state may go to an API: it was made there, or where is not
     * known (made in code, or stored before origins were kept).
     *
     * @param thinking the part
     * @param origin the API's origin name
     * @return true when its signature may be sent
     */
    public static boolean ownOrUnknown(dev.shelly.chats.Thinking thinking, String origin) {
        return thinking.origin() == null || thinking.origin().equals(origin);
    }
}
