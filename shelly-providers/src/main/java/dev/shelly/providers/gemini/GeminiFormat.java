package dev.shelly.providers.gemini;

import static dev.shelly.providers.internal.WireSupport.count;
import static dev.shelly.providers.internal.WireSupport.invalid;
import static dev.shelly.providers.internal.WireSupport.text;

import dev.shelly.chats.Image;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
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
import dev.shelly.provider.spi.WireFormat;
import dev.shelly.providers.internal.JsonObjectMemo;
import dev.shelly.providers.internal.WireSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;

/** Google's Gemini API ({@code generateContent}, {@code streamGenerateContent}) on the wire. */
final class GeminiFormat implements WireFormat {
    private static final Logger LOG = LoggerFactory.getLogger(GeminiFormat.class);
    /** The most stop sequences Gemini takes. */
    static final int MAX_STOP = 5;
    private static final Pattern SECONDS = Pattern.compile("^(\\d+(?:\\.\\d+)?)s$");

    private final String provider;
    private final String model;
    private final String versionPrefix;
    private final ModelOptions defaults;
    private final JsonObjectMemo memo = new JsonObjectMemo();
    private final GeminiSchema schemas = new GeminiSchema();
    private volatile int lastSize = 4096;

    /**
     * @param versionPrefix {@code v1beta/} when the base URL names no API version, else empty
     */
    GeminiFormat(String provider, String model, String versionPrefix, ModelOptions defaults) {
        this.provider = provider;
        this.model = model.startsWith("models/") ? model.substring("models/".length()) : model;
        this.versionPrefix = versionPrefix;
        this.defaults = defaults;
    }

    @Override
    public String provider() {
        return provider;
    }

    @Override
    public String model() {
        return model;
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

    /** One content on the wire: a role and the parts it carries, after merging. */
    private record Content(String role, List<Part> parts) {}

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
        StringBuilder system = new StringBuilder();
        List<Content> contents = new ArrayList<>(request.messages().size());
        Map<String, ToolCall> calls = new HashMap<>();
        for (Message m : request.messages()) {
            if (m.role() == Role.SYSTEM) {
                String text = m.text();
                if (!text.isBlank()) {
                    system.append(system.isEmpty() ? "" : "\n\n").append(text);
                }
                continue;
            }
            boolean model = m.role() == Role.ASSISTANT;
            List<Part> parts = new ArrayList<>(m.parts().size());
            for (Part p : m.parts()) {
                if (sendable(p, model)) {
                    parts.add(p);
                    if (p instanceof ToolCall c) {
                        calls.put(c.id(), c);
                    }
                } else {
                    LOG.debug("{}: not sending a {} part in a {} message", provider, p.kind(), m.role());
                }
            }
            if (parts.isEmpty()) {
                continue;
            }
            String role = model ? "model" : "user";
            if (!contents.isEmpty() && contents.getLast().role().equals(role)) {
                contents.getLast().parts().addAll(parts);
            } else {
                contents.add(new Content(role, parts));
            }
        }
        String finalSchema = responseSchema;
        byte[] body = WireSupport.write(lastSize, gen -> {
            gen.writeStartObject();
            if (!system.isEmpty()) {
                gen.writeName("systemInstruction");
                gen.writeStartObject();
                gen.writeName("parts");
                gen.writeStartArray();
                gen.writeStartObject();
                gen.writeStringProperty("text", system.toString());
                gen.writeEndObject();
                gen.writeEndArray();
                gen.writeEndObject();
            }
            gen.writeName("contents");
            gen.writeStartArray();
            int turnStart = turnStart(contents);
            for (int i = 0; i < contents.size(); i++) {
                writeContent(gen, contents.get(i), calls, i >= turnStart);
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
        lastSize = body.length;
        return body;
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
        if (options.temperature() != null) {
            gen.writeName("temperature");
            gen.writeNumber(options.temperature());
        }
        if (options.topP() != null) {
            gen.writeName("topP");
            gen.writeNumber(options.topP());
        }
        if (options.stop() != null && !options.stop().isEmpty()) {
            gen.writeName("stopSequences");
            gen.writeStartArray();
            for (String s : options.stop()) {
                gen.writeString(s);
            }
            gen.writeEndArray();
        }
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

    /** Which parts each side can carry; the rest (custom parts, images from the model) are left out. */
    private static boolean sendable(Part p, boolean model) {
        return switch (p) {
            case Text t -> !t.text().isEmpty();
            case ToolCall c -> model;
            case Thinking t -> model && WireSupport.ownOrUnknown(t, ORIGIN)
                    && (t.redacted() || !t.text().isEmpty() || t.signature() != null);
            case Image i -> !model && (!i.isUrl() || WireSupport.splitDataUrl(i.url()) != null || mimeType(i.url()) != null);
            case ToolResult r -> !model;
            default -> false;
        };
    }

    /** Where the turn in progress starts: after the last user content that is not only function responses. */
    private static int turnStart(List<Content> contents) {
        for (int i = contents.size() - 1; i >= 0; i--) {
            Content c = contents.get(i);
            if (c.role().equals("user") && c.parts().stream().anyMatch(p -> !(p instanceof ToolResult))) {
                return i + 1;
            }
        }
        return 0;
    }

    private void writeContent(JsonGenerator gen, Content c, Map<String, ToolCall> calls, boolean currentTurn) {
        gen.writeStartObject();
        gen.writeStringProperty("role", c.role());
        gen.writeName("parts");
        gen.writeStartArray();
        if (c.role().equals("model")) {
            writeModelParts(gen, c.parts(), currentTurn);
        } else {
            // Function responses first, in the order of the results, then the user's own parts.
            for (Part p : c.parts()) {
                if (p instanceof ToolResult r) {
                    writeFunctionResponse(gen, r, calls.get(r.toolCallId()));
                }
            }
            for (Part p : c.parts()) {
                if (p instanceof ToolResult r) {
                    for (Part inner : r.content()) {
                        if (inner instanceof Image i && sendable(i, false)) {
                            writeImage(gen, i);
                        }
                    }
                } else if (p instanceof Text t) {
                    gen.writeStartObject();
                    gen.writeStringProperty("text", t.text());
                    gen.writeEndObject();
                } else if (p instanceof Image i) {
                    writeImage(gen, i);
                }
            }
        }
        gen.writeEndArray();
        gen.writeEndObject();
    }

    /**
     * The model's parts: a redacted {@link Thinking} holds the thought signature of the part that
     * follows it and goes back on that part; a thought goes back as a thought part with its own
     * signature. A signature with no part after it goes back on an empty text part, as it came.
     * In the turn in progress, the first function call of a model message that another provider
     * made (no thought of Gemini's in it, and an id Gemini did not leave to be made up) carries
     * {@link #FOREIGN_CALL_SIGNATURE}.
     */
    private void writeModelParts(JsonGenerator gen, List<Part> parts, boolean currentTurn) {
        String pending = null;
        boolean firstCall = currentTurn && parts.stream().noneMatch(p -> p instanceof Thinking t
                && ORIGIN.equals(t.origin()));
        for (Part p : parts) {
            switch (p) {
                case Thinking t when t.redacted() -> {
                    if (pending != null) {
                        writeSignatureOnly(gen, pending);
                    }
                    pending = t.signature();
                }
                case Thinking t -> {
                    if (pending != null) {
                        writeSignatureOnly(gen, pending);
                        pending = null;
                    }
                    gen.writeStartObject();
                    gen.writeStringProperty("text", t.text());
                    gen.writeBooleanProperty("thought", true);
                    if (t.signature() != null) {
                        gen.writeStringProperty("thoughtSignature", t.signature());
                    }
                    gen.writeEndObject();
                }
                case Text t -> {
                    gen.writeStartObject();
                    gen.writeStringProperty("text", t.text());
                    if (pending != null) {
                        gen.writeStringProperty("thoughtSignature", pending);
                        pending = null;
                    }
                    gen.writeEndObject();
                }
                case ToolCall c -> {
                    gen.writeStartObject();
                    gen.writeName("functionCall");
                    gen.writeStartObject();
                    if (!c.id().startsWith(GeminiReply.MADE_UP_PREFIX)) {
                        gen.writeStringProperty("id", c.id());
                    }
                    gen.writeStringProperty("name", c.name());
                    gen.writeName("args");
                    if (memo.isJsonObject(c.arguments())) {
                        gen.writeRawValue(c.arguments().strip());
                    } else {
                        // Gemini takes only an object; the model's malformed arguments cannot go back as they are.
                        LOG.debug("{}: tool call {} has arguments that are not a JSON object; sending {{}}", provider, c.id());
                        gen.writeStartObject();
                        gen.writeEndObject();
                    }
                    gen.writeEndObject();
                    if (pending == null && firstCall && !c.id().startsWith(GeminiReply.MADE_UP_PREFIX)) {
                        pending = FOREIGN_CALL_SIGNATURE;
                    }
                    firstCall = false;
                    if (pending != null) {
                        gen.writeStringProperty("thoughtSignature", pending);
                        pending = null;
                    }
                    gen.writeEndObject();
                }
                default -> { }
            }
        }
        if (pending != null) {
            writeSignatureOnly(gen, pending);
        }
    }

    private static void writeSignatureOnly(JsonGenerator gen, String signature) {
        gen.writeStartObject();
        gen.writeStringProperty("text", "");
        gen.writeStringProperty("thoughtSignature", signature);
        gen.writeEndObject();
    }

    /**
     * A tool result as a {@code functionResponse}: the call's id when Gemini gave it (a made-up id
     * is not sent), the function's name, and the result's text under {@code output}, or under
     * {@code error} when the tool failed, as Gemini's docs ask.
     */
    private void writeFunctionResponse(JsonGenerator gen, ToolResult r, ToolCall call) {
        gen.writeStartObject();
        gen.writeName("functionResponse");
        gen.writeStartObject();
        if (!r.toolCallId().startsWith(GeminiReply.MADE_UP_PREFIX)) {
            gen.writeStringProperty("id", r.toolCallId());
        }
        String name = call != null ? call.name() : r.toolCallId();
        if (call == null) {
            LOG.debug("{}: tool result {} answers no call of the conversation; naming it by its id", provider,
                    r.toolCallId());
        }
        gen.writeStringProperty("name", name);
        gen.writeName("response");
        gen.writeStartObject();
        gen.writeStringProperty(r.isError() ? "error" : "output", r.text());
        gen.writeEndObject();
        gen.writeEndObject();
        gen.writeEndObject();
    }

    private static void writeImage(JsonGenerator gen, Image image) {
        gen.writeStartObject();
        String[] dataUrl = image.isUrl() ? WireSupport.splitDataUrl(image.url()) : null;
        if (image.isUrl() && dataUrl == null) {
            gen.writeName("fileData");
            gen.writeStartObject();
            gen.writeStringProperty("mimeType", mimeType(image.url()));
            gen.writeStringProperty("fileUri", image.url());
            gen.writeEndObject();
        } else {
            gen.writeName("inlineData");
            gen.writeStartObject();
            gen.writeStringProperty("mimeType", dataUrl != null ? dataUrl[0] : image.mediaType());
            gen.writeStringProperty("data", dataUrl != null ? dataUrl[1] : image.base64());
            gen.writeEndObject();
        }
        gen.writeEndObject();
    }

    /** The image type a URL's extension names, or null when it names none Gemini takes. */
    static String mimeType(String url) {
        String path = url;
        int cut = path.indexOf('?');
        if (cut >= 0) {
            path = path.substring(0, cut);
        }
        cut = path.indexOf('#');
        if (cut >= 0) {
            path = path.substring(0, cut);
        }
        String lower = path.toLowerCase(Locale.ROOT);
        if (lower.endsWith(".png")) {
            return "image/png";
        }
        if (lower.endsWith(".jpg") || lower.endsWith(".jpeg")) {
            return "image/jpeg";
        }
        if (lower.endsWith(".webp")) {
            return "image/webp";
        }
        if (lower.endsWith(".heic")) {
            return "image/heic";
        }
        if (lower.endsWith(".heif")) {
            return "image/heif";
        }
        if (lower.endsWith(".gif")) {
            return "image/gif";
        }
        return null;
    }

    // ---- reply --------------------------------------------------------------------------

    @Override
    public ModelResponse reply(byte[] body, ModelRequest request) {
        JsonNode root = WireSupport.parseObject(provider, body, "the reply");
        if (root.hasNonNull("error")) {
            throw inStreamError(root);
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

    private static long orZero(Long v) {
        return v == null ? 0 : v;
    }

    // ---- streaming ----------------------------------------------------------------------

    @Override
    public StreamDecoder decoder(ModelRequest request, StreamListener listener) {
        return new GeminiStreamDecoder(this, new GeminiReply(provider, request.messages().size(), listener), listener);
    }

    // ---- errors -------------------------------------------------------------------------

    /** The fields of Google's error body: {@code {"error": {"code", "message", "status", "details"}}}. */
    private record ErrorFields(int code, String message, String status, JsonNode details) {}

    private static ErrorFields fields(JsonNode root) {
        JsonNode error = root == null ? null : root.get("error");
        if (error == null || !error.isObject()) {
            return new ErrorFields(0, null, null, null);
        }
        JsonNode code = error.get("code");
        return new ErrorFields(code != null && code.isIntegralNumber() ? code.asInt() : 0, text(error, "message"),
                text(error, "status"), error.get("details"));
    }

    @Override
    public ModelException error(ErrorResponse response) {
        ErrorFields f = fields(WireSupport.tryParse(response.body()));
        Kind kind = kind(f, response.status());
        ModelException.Builder b = response.toException(kind, f.message() != null ? f.message() : response.bodyExcerpt(),
                response.header("x-request-id").orElse(null));
        if (response.retryAfter().isEmpty()) {
            retryDelay(f.details()).ifPresent(b::retryAfter);
        }
        return b.build();
    }

    /** An error object that arrived with HTTP 200, in a stream or as the body. */
    ModelException inStreamError(JsonNode root) {
        ErrorFields f = fields(root);
        ModelException.Builder b = ModelException.builder(kind(f, 0)).provider(provider)
                .providerMessage(f.message() != null ? f.message() : "an error occurred during streaming");
        if (f.code() > 0) {
            b.status(f.code());
        }
        retryDelay(f.details()).ifPresent(b::retryAfter);
        return b.build();
    }

    /** The {@code google.rpc.RetryInfo} delay ({@code "retryDelay": "30s"}) of an error's details. */
    static Optional<Duration> retryDelay(JsonNode details) {
        if (details == null || !details.isArray()) {
            return Optional.empty();
        }
        for (JsonNode d : details) {
            String type = text(d, "@type");
            String delay = text(d, "retryDelay");
            if (type != null && type.endsWith("google.rpc.RetryInfo") && delay != null) {
                Matcher m = SECONDS.matcher(delay.strip());
                if (m.matches()) {
                    return Optional.of(Duration.ofNanos(Math.round(Double.parseDouble(m.group(1)) * 1e9)));
                }
            }
        }
        return Optional.empty();
    }

    /** Whether a {@code google.rpc.QuotaFailure} names a daily quota, which waiting a minute does not lift. */
    private static boolean dailyQuota(JsonNode details) {
        if (details == null || !details.isArray()) {
            return false;
        }
        for (JsonNode d : details) {
            JsonNode violations = d.get("violations");
            if (violations != null && violations.isArray()) {
                for (JsonNode v : violations) {
                    String id = text(v, "quotaId");
                    if (id != null && id.contains("PerDay")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Whether the details carry {@code google.rpc.ErrorInfo} with this reason. */
    private static boolean reason(JsonNode details, String reason) {
        if (details == null || !details.isArray()) {
            return false;
        }
        for (JsonNode d : details) {
            if (reason.equals(text(d, "reason"))) {
                return true;
            }
        }
        return false;
    }

    private static Kind kind(ErrorFields f, int httpStatus) {
        int status = httpStatus != 0 ? httpStatus : f.code();
        String message = f.message() == null ? "" : f.message().toLowerCase(Locale.ROOT);
        String code = f.status() == null ? "" : f.status();
        if (reason(f.details(), "API_KEY_INVALID") || message.contains("api key not valid")
                || message.contains("api key expired") || code.equals("UNAUTHENTICATED")) {
            return Kind.AUTHENTICATION;
        }
        if (message.contains("exceeds the maximum number of tokens") || WireSupport.contextOverflow(null, null, message)) {
            return Kind.CONTEXT_LENGTH_EXCEEDED;
        }
        return switch (code) {
            case "INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE" -> Kind.INVALID_REQUEST;
            case "PERMISSION_DENIED" -> Kind.PERMISSION;
            case "NOT_FOUND" -> Kind.NOT_FOUND;
            case "RESOURCE_EXHAUSTED" -> dailyQuota(f.details()) ? Kind.QUOTA_EXCEEDED : Kind.RATE_LIMITED;
            case "UNAVAILABLE" -> Kind.OVERLOADED;
            case "DEADLINE_EXCEEDED" -> Kind.TIMEOUT;
            case "INTERNAL", "UNKNOWN", "ABORTED", "CANCELLED", "DATA_LOSS" -> Kind.SERVER;
            default -> status == 503 ? Kind.OVERLOADED : status == 0 ? Kind.SERVER : ErrorResponse.kindForStatus(status);
        };
    }
}
