package dev.shelly.providers.gemini;

import static dev.shelly.providers.internal.WireSupport.count;
import static dev.shelly.providers.internal.WireSupport.invalid;
import static dev.shelly.providers.internal.WireSupport.orZero;

import dev.shelly.chats.Part;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelOptions.Reasoning;
import dev.shelly.modeladapter.ModelOptions.ToolChoice;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ResponseFormat;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.modeladapter.Usage;
import dev.shelly.provider.spi.ErrorResponse;
import dev.shelly.provider.spi.StreamDecoder;
import dev.shelly.providers.internal.JsonWireFormat;
import dev.shelly.providers.internal.Turns;
import dev.shelly.providers.internal.Turns.Turn;
import dev.shelly.providers.internal.WireSupport;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;

/** Google's Gemini API ({@code generateContent}, {@code streamGenerateContent}) on the wire. */
final class GeminiFormat extends JsonWireFormat {
    private static final Logger LOG = LoggerFactory.getLogger(GeminiFormat.class);
    /** The most stop sequences Gemini takes. */
    static final int MAX_STOP = 5;

    private final String versionPrefix;
    private final GeminiSchema schemas = new GeminiSchema();
    private final GeminiContents contents;
    private final GeminiErrors errors;

    /**
     * @param versionPrefix {@code v1beta/} when the base URL names no API version, else empty
     */
    GeminiFormat(String provider, String model, String versionPrefix, ModelOptions defaults) {
        super(provider, model.startsWith("models/") ? model.substring("models/".length()) : model, defaults);
        this.versionPrefix = versionPrefix;
        this.contents = new GeminiContents(provider, memo);
        this.errors = new GeminiErrors(provider);
    }

    @Override
    public String path() {
        return versionPrefix + "models/" + model + ":generateContent";
    }

    @Override
    public String path(boolean stream) {
        return stream ? versionPrefix + "models/" + model + ":streamGenerateContent?alt=sse" : path();
    }

    /** A field by its camelCase name, or the snake_case one some servers write. */
    static JsonNode node(JsonNode node, String camel, String snake) {
        JsonNode v = node.get(camel);
        return v != null ? v : node.get(snake);
    }

    /** A string field by either name, or null. */
    static String field(JsonNode node, String camel, String snake) {
        JsonNode v = node(node, camel, snake);
        return v != null && v.isString() ? v.stringValue() : null;
    }

    // ---- request ------------------------------------------------------------------------

    /** The origin of the thought signatures this API makes: {@link Thinking#origin()} of its replies. */
    static final String ORIGIN = "gemini";

    /**
     * What Gemini's documentation gives to stand for a thought signature on a function call it did
     * not make (one from another model's conversation): Gemini 3 refuses a function call of the
     * turn in progress that carries no signature.
     */
    static final String FOREIGN_CALL_SIGNATURE = "skip_thought_signature_validator";

    @Override
    public byte[] request(ModelRequest request, boolean stream) {
        ModelOptions options = request.options().orElse(defaults);
        check(options);
        List<ToolDefinition> tools = request.tools();
        List<String> toolParameters = new ArrayList<>(tools.size());
        for (ToolDefinition t : tools) {
            if (!memo.isJsonObject(t.inputSchema())) {
                throw new IllegalArgumentException("tool '" + t.name() + "': inputSchema is not a JSON object");
            }
            try {
                toolParameters.add(schemas.convert(t.inputSchema()));
            } catch (GeminiSchema.Unsupported e) {
                throw WireSupport.refusal(provider, "tool '" + t.name() + "': its input schema cannot be sent to Gemini: "
                        + e.getMessage());
            }
        }
        String responseSchema = null;
        if (options.responseFormat() instanceof ResponseFormat.JsonSchema f) {
            WireSupport.checkSchema(provider, f, memo);
            try {
                responseSchema = schemas.convert(f.schema());
            } catch (GeminiSchema.Unsupported e) {
                throw WireSupport.refusal(provider, "ResponseFormat.jsonSchema '" + f.name()
                        + "': the schema cannot be sent to Gemini: " + e.getMessage());
            }
        }
        Turns turns = Turns.of(request.messages(), GeminiContents::sendable, provider, LOG);
        String system = turns.system();
        List<Turn> wire = turns.turns();
        Map<String, ToolCall> calls = new HashMap<>();
        for (Turn t : wire) {
            for (Part p : t.parts()) {
                if (t.assistant() && p instanceof ToolCall c) {
                    calls.put(c.id(), c);
                }
            }
        }
        String finalSchema = responseSchema;
        return body(gen -> {
            gen.writeStartObject();
            if (!system.isEmpty()) {
                gen.writeName("systemInstruction");
                gen.writeStartObject();
                gen.writeName("parts");
                gen.writeStartArray();
                gen.writeStartObject();
                gen.writeStringProperty("text", system);
                gen.writeEndObject();
                gen.writeEndArray();
                gen.writeEndObject();
            }
            gen.writeName("contents");
            gen.writeStartArray();
            int turnStart = GeminiContents.turnStart(wire);
            for (int i = 0; i < wire.size(); i++) {
                contents.writeContent(gen, wire.get(i), calls, i >= turnStart);
            }
            gen.writeEndArray();
            if (!tools.isEmpty()) {
                gen.writeName("tools");
                gen.writeStartArray();
                gen.writeStartObject();
                gen.writeName("functionDeclarations");
                gen.writeStartArray();
                for (int i = 0; i < tools.size(); i++) {
                    ToolDefinition t = tools.get(i);
                    gen.writeStartObject();
                    gen.writeStringProperty("name", t.name());
                    if (!t.description().isEmpty()) {
                        gen.writeStringProperty("description", t.description());
                    }
                    gen.writeName("parameters");
                    gen.writeRawValue(toolParameters.get(i));
                    gen.writeEndObject();
                }
                gen.writeEndArray();
                gen.writeEndObject();
                gen.writeEndArray();
                writeToolConfig(gen, options.toolChoice());
            }
            writeGenerationConfig(gen, options, finalSchema);
            gen.writeEndObject();
        });
    }

    /** Refuses, before any HTTP, what Gemini cannot take. */
    private void check(ModelOptions options) {
        if (options.temperature() != null && options.temperature() > 2) {
            throw WireSupport.refusal(provider, "temperature must be between 0 and 2, was " + options.temperature());
        }
        if (options.stop() != null && options.stop().size() > MAX_STOP) {
            throw WireSupport.refusal(provider, "at most " + MAX_STOP + " stop sequences, got " + options.stop().size());
        }
        if (options.cache() != null && options.cache().ttl() != null) {
            throw WireSupport.refusal(provider,
                    "a cache ttl cannot be set: Gemini caches prompts on its own (implicit caching) and takes no ttl");
        }
    }

    private static void writeToolConfig(JsonGenerator gen, ToolChoice choice) {
        if (choice == null) {
            return;
        }
        gen.writeName("toolConfig");
        gen.writeStartObject();
        gen.writeName("functionCallingConfig");
        gen.writeStartObject();
        switch (choice) {
            case ToolChoice.Auto a -> gen.writeStringProperty("mode", "AUTO");
            case ToolChoice.None n -> gen.writeStringProperty("mode", "NONE");
            case ToolChoice.Required r -> gen.writeStringProperty("mode", "ANY");
            case ToolChoice.Named n -> {
                gen.writeStringProperty("mode", "ANY");
                gen.writeName("allowedFunctionNames");
                gen.writeStartArray();
                gen.writeString(n.name());
                gen.writeEndArray();
            }
        }
        gen.writeEndObject();
        gen.writeEndObject();
    }

    private static void writeGenerationConfig(JsonGenerator gen, ModelOptions options, String responseSchema) {
        boolean any = options.maxTokens() != null || options.temperature() != null || options.topP() != null
                || (options.stop() != null && !options.stop().isEmpty()) || responseSchema != null
                || options.reasoning() instanceof Reasoning.Budget || options.reasoning() instanceof Reasoning.Effort;
        if (!any) {
            return;
        }
        gen.writeName("generationConfig");
        gen.writeStartObject();
        if (options.maxTokens() != null) {
            gen.writeNumberProperty("maxOutputTokens", options.maxTokens());
        }
        WireSupport.writeSampling(gen, options, "topP");
        WireSupport.writeStrings(gen, "stopSequences", options.stop());
        if (responseSchema != null) {
            gen.writeStringProperty("responseMimeType", "application/json");
            gen.writeName("responseSchema");
            gen.writeRawValue(responseSchema);
        }
        switch (options.reasoning()) {
            case Reasoning.Budget b -> {
                gen.writeName("thinkingConfig");
                gen.writeStartObject();
                gen.writeNumberProperty("thinkingBudget", b.tokens());
                gen.writeBooleanProperty("includeThoughts", true);
                gen.writeEndObject();
            }
            case Reasoning.Effort e -> {
                gen.writeName("thinkingConfig");
                gen.writeStartObject();
                gen.writeStringProperty("thinkingLevel", e.level());
                gen.writeBooleanProperty("includeThoughts", true);
                gen.writeEndObject();
            }
            case null, default -> { }
        }
        gen.writeEndObject();
    }

    // ---- reply --------------------------------------------------------------------------

    @Override
    public ModelResponse reply(byte[] body, ModelRequest request) {
        JsonNode root = WireSupport.parseObject(provider, body, "the reply");
        if (root.hasNonNull("error")) {
            throw errors.inStreamError(root);
        }
        JsonNode candidate = firstCandidate(root);
        String responseId = field(root, "responseId", "response_id");
        if (candidate == null) {
            throw blockedOrEmpty(root);
        }
        GeminiReply reply = new GeminiReply(provider, request.messages().size(), StreamListener.NONE);
        JsonNode content = candidate.get("content");
        if (content != null) {
            reply.add(content.get("parts"), responseId);
        }
        String finish = field(candidate, "finishReason", "finish_reason");
        return response(reply, finish, field(root, "modelVersion", "model_version"), responseId,
                usage(node(root, "usageMetadata", "usage_metadata")));
    }

    /** The response around a reply's parts. */
    ModelResponse response(GeminiReply reply, String finish, String modelVersion, String responseId, Usage usage) {
        return WireSupport.reply(provider, reply.parts(), modelVersion != null ? modelVersion : model, responseId,
                stopReason(finish, reply.hasCalls()), finish, usage);
    }

    static JsonNode firstCandidate(JsonNode root) {
        JsonNode candidates = root.get("candidates");
        return candidates != null && candidates.isArray() && !candidates.isEmpty() ? candidates.get(0) : null;
    }

    /**
     * A reply without a candidate: the prompt was blocked ({@code promptFeedback.blockReason}),
     * which no retry changes, or the reply is not valid.
     */
    ModelException blockedOrEmpty(JsonNode root) {
        JsonNode feedback = node(root, "promptFeedback", "prompt_feedback");
        String block = feedback == null ? null : field(feedback, "blockReason", "block_reason");
        if (block != null) {
            return ModelException.builder(Kind.INVALID_REQUEST).provider(provider)
                    .providerMessage("Gemini blocked the prompt (" + block + ")")
                    .retryable(false)
                    .build();
        }
        return invalid(provider, "the reply has no candidates", null);
    }

    static StopReason stopReason(String finish, boolean calls) {
        if (finish == null) {
            return null;
        }
        return switch (finish) {
            case "STOP" -> calls ? StopReason.TOOL_USE : StopReason.END_TURN;
            case "MAX_TOKENS" -> StopReason.MAX_TOKENS;
            case "SAFETY", "RECITATION", "LANGUAGE", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY",
                    "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION" -> StopReason.CONTENT_FILTER;
            default -> StopReason.OTHER;
        };
    }

    /**
     * Usage in neutral terms. {@code promptTokenCount} includes the cached tokens
     * ({@code cachedContentTokenCount}); tool-use prompt tokens are input too. Thinking tokens
     * ({@code thoughtsTokenCount}) are counted apart from {@code candidatesTokenCount} and billed as
     * output, so output is both.
     *
     * @param usage the {@code usageMetadata} object
     * @return the usage, or null when it carries no counts (streamed chunks before the last)
     */
    static Usage usage(JsonNode usage) {
        if (usage == null || !usage.isObject()) {
            return null;
        }
        Long prompt = count(usage, "promptTokenCount");
        Long candidates = count(usage, "candidatesTokenCount");
        Long thoughts = count(usage, "thoughtsTokenCount");
        if (prompt == null && candidates == null && thoughts == null) {
            return null;
        }
        long cached = orZero(count(usage, "cachedContentTokenCount"));
        long toolUse = orZero(count(usage, "toolUsePromptTokenCount"));
        long input = orZero(prompt) + toolUse;
        long reasoning = orZero(thoughts);
        return new Usage(Math.max(0, input - cached), orZero(candidates) + reasoning, Math.min(cached, input), 0,
                reasoning);
    }

    // ---- streaming ----------------------------------------------------------------------

    @Override
    public StreamDecoder decoder(ModelRequest request, StreamListener listener) {
        return new GeminiStreamDecoder(this, errors, new GeminiReply(provider, request.messages().size(), listener),
                listener);
    }

    // ---- errors -------------------------------------------------------------------------

    @Override
    public ModelException error(ErrorResponse response) {
        return errors.error(response);
    }
}
