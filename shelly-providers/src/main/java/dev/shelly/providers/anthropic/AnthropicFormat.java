package dev.shelly.providers.anthropic;

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
import dev.shelly.modeladapter.ModelOptions.CacheHints;
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
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;

/** The Anthropic Messages API on the wire. */
final class AnthropicFormat implements WireFormat {
    private static final Logger LOG = LoggerFactory.getLogger(AnthropicFormat.class);

    /** The name of the forced tool that carries a JSON answer in tool mode. */
    static final String FINAL_ANSWER = "final_answer";
    private static final String FINAL_ANSWER_DESCRIPTION =
            "Give your final answer by calling this tool once, with the answer as its input.";
    /** Models without native structured outputs (GA on Claude 4.5 and later only). */
    private static final Pattern NO_NATIVE_JSON = Pattern.compile("^claude-3|^claude-(opus|sonnet)-4(-[01])?(-\\d{8})?$");
    private static final Duration FIVE_MINUTES = Duration.ofMinutes(5);
    private static final Duration ONE_HOUR = Duration.ofHours(1);

    private final String provider;
    private final String model;
    private final ModelOptions defaults;
    private final AnthropicCompleter.StructuredOutputs structuredOutputs;
    private final JsonObjectMemo memo = new JsonObjectMemo();
    private volatile int lastSize = 4096;

    AnthropicFormat(String provider, String model, ModelOptions defaults,
            AnthropicCompleter.StructuredOutputs structuredOutputs) {
        this.provider = provider;
        this.model = model;
        this.defaults = defaults;
        this.structuredOutputs = structuredOutputs;
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
        return "v1/messages";
    }

    // ---- request ------------------------------------------------------------------------

    /** One message on the wire: a role and the parts it carries, after merging. */
    private record WireMessage(String role, List<Part> parts) {}

    /** The origin of the thinking this API signs: {@link Thinking#origin()} of its replies. */
    static final String ORIGIN = "anthropic";

    /** The longest tool id sent; Anthropic's ids are about 30 characters. */
    private static final int MAX_ID = 64;

    /** How a JSON response format is sent on one request. */
    private enum JsonMode { NONE, NATIVE, TOOL }

    /** Whether a request asks for JSON through the forced tool, so the reply's tool call becomes its text. */
    boolean toolMode(ModelRequest request) {
        return jsonMode(request.options().orElse(defaults)) == JsonMode.TOOL;
    }

    private JsonMode jsonMode(ModelOptions options) {
        if (!(options.responseFormat() instanceof ResponseFormat.JsonSchema f)) {
            return JsonMode.NONE;
        }
        return switch (structuredOutputs) {
            case TOOL -> JsonMode.TOOL;
            case NATIVE -> f.strict() ? JsonMode.NATIVE : JsonMode.TOOL;
            case AUTO -> f.strict() && !NO_NATIVE_JSON.matcher(model).find() ? JsonMode.NATIVE : JsonMode.TOOL;
        };
    }

    @Override
    public byte[] request(ModelRequest request, boolean stream) {
        List<Message> messages = request.messages();
        List<ToolDefinition> tools = request.tools();
        ModelOptions options = request.options().orElse(defaults);
        int maxTokens = options.maxTokens() != null ? options.maxTokens() : AnthropicCompleter.DEFAULT_MAX_TOKENS;
        JsonMode json = jsonMode(options);
        check(options, maxTokens, json, tools);
        CacheHints cache = options.cache() == null ? CacheHints.OFF : options.cache();
        StringBuilder system = new StringBuilder();
        List<WireMessage> wire = new ArrayList<>(messages.size());
        for (Message m : messages) {
            if (m.role() == Role.SYSTEM) {
                String text = m.text();
                if (!text.isBlank()) {
                    system.append(system.isEmpty() ? "" : "\n\n").append(text);
                }
                continue;
            }
            boolean assistant = m.role() == Role.ASSISTANT;
            List<Part> parts = new ArrayList<>(m.parts().size());
            for (Part p : m.parts()) {
                if (sendable(p, assistant)) {
                    parts.add(p);
                } else {
                    LOG.debug("{}: not sending a {} part in a {} message", provider, p.kind(), m.role());
                }
            }
            if (parts.isEmpty()) {
                continue;
            }
            String role = assistant ? "assistant" : "user";
            if (!wire.isEmpty() && wire.getLast().role().equals(role)) {
                wire.getLast().parts().addAll(parts);
            } else {
                wire.add(new WireMessage(role, parts));
            }
        }
        boolean thinkingKept = !(options.reasoning() instanceof Reasoning.Budget) || !toolTurnWithoutThinking(wire);
        if (!thinkingKept) {
            LOG.debug("{}: not asking for thinking in this request: the tool calls it answers were made without "
                    + "Anthropic's thinking (another provider's), and thinking requires them to follow a thinking block",
                    provider);
        }
        boolean cacheSystem = cache.prefix() && !system.isEmpty();
        boolean cacheLastTool = cache.prefix() && system.isEmpty();
        Duration ttl = cache.ttl();
        byte[] body = WireSupport.write(lastSize, gen -> {
            gen.writeStartObject();
            gen.writeStringProperty("model", model);
            gen.writeNumberProperty("max_tokens", maxTokens);
            if (options.temperature() != null) {
                gen.writeName("temperature");
                gen.writeNumber(options.temperature());
            }
            if (options.topP() != null) {
                gen.writeName("top_p");
                gen.writeNumber(options.topP());
            }
            if (options.stop() != null && !options.stop().isEmpty()) {
                gen.writeName("stop_sequences");
                gen.writeStartArray();
                for (String stop : options.stop()) {
                    gen.writeString(stop);
                }
                gen.writeEndArray();
            }
            if (options.reasoning() instanceof Reasoning.Budget b && thinkingKept) {
                gen.writeName("thinking");
                gen.writeStartObject();
                gen.writeStringProperty("type", "enabled");
                gen.writeNumberProperty("budget_tokens", b.tokens());
                gen.writeEndObject();
            }
            if (cacheSystem) {
                gen.writeName("system");
                gen.writeStartArray();
                gen.writeStartObject();
                gen.writeStringProperty("type", "text");
                gen.writeStringProperty("text", system.toString());
                writeCacheControl(gen, ttl);
                gen.writeEndObject();
                gen.writeEndArray();
            } else if (!system.isEmpty()) {
                gen.writeStringProperty("system", system.toString());
            }
            gen.writeName("messages");
            gen.writeStartArray();
            for (int i = 0; i < wire.size(); i++) {
                writeMessage(gen, wire.get(i), cache.conversation() && i == wire.size() - 1, ttl);
            }
            gen.writeEndArray();
            boolean finalAnswer = json == JsonMode.TOOL;
            if (!tools.isEmpty() || finalAnswer) {
                gen.writeName("tools");
                gen.writeStartArray();
                for (int i = 0; i < tools.size(); i++) {
                    gen.writeStartObject();
                    WireSupport.writeToolFields(gen, tools.get(i), "input_schema", memo);
                    if (cacheLastTool && !finalAnswer && i == tools.size() - 1) {
                        writeCacheControl(gen, ttl);
                    }
                    gen.writeEndObject();
                }
                if (finalAnswer) {
                    ResponseFormat.JsonSchema f = (ResponseFormat.JsonSchema) options.responseFormat();
                    gen.writeStartObject();
                    gen.writeStringProperty("name", FINAL_ANSWER);
                    gen.writeStringProperty("description", FINAL_ANSWER_DESCRIPTION);
                    gen.writeName("input_schema");
                    gen.writeRawValue(f.schema().strip());
                    if (cacheLastTool) {
                        writeCacheControl(gen, ttl);
                    }
                    gen.writeEndObject();
                }
                gen.writeEndArray();
                writeToolChoice(gen, options.toolChoice(), finalAnswer, !tools.isEmpty());
            }
            if (json == JsonMode.NATIVE) {
                ResponseFormat.JsonSchema f = (ResponseFormat.JsonSchema) options.responseFormat();
                gen.writeName("output_config");
                gen.writeStartObject();
                gen.writeName("format");
                gen.writeStartObject();
                gen.writeStringProperty("type", "json_schema");
                gen.writeName("schema");
                gen.writeRawValue(f.schema().strip());
                gen.writeEndObject();
                gen.writeEndObject();
            }
            if (stream) {
                gen.writeBooleanProperty("stream", true);
            }
            gen.writeEndObject();
        });
        lastSize = body.length;
        return body;
    }

    /** Refuses, before any HTTP, what the Messages API would refuse or this format cannot map. */
    private void check(ModelOptions options, int maxTokens, JsonMode json, List<ToolDefinition> tools) {
        Reasoning reasoning = options.reasoning();
        if (reasoning instanceof Reasoning.Effort e) {
            throw WireSupport.refusal(provider, "Reasoning.effort(\"" + e.level() + "\") is not supported: Anthropic takes "
                    + "a thinking budget, Reasoning.budget(tokens) of at least 1024 and below maxTokens");
        }
        boolean thinking = reasoning instanceof Reasoning.Budget;
        if (reasoning instanceof Reasoning.Budget b) {
            if (b.tokens() < 1024) {
                throw WireSupport.refusal(provider, "Reasoning.budget(" + b.tokens()
                        + ") is below Anthropic's minimum of 1024 thinking tokens");
            }
            if (b.tokens() >= maxTokens) {
                throw WireSupport.refusal(provider, "Reasoning.budget(" + b.tokens() + ") must be less than maxTokens ("
                        + maxTokens + ")");
            }
            String forced = switch (options.toolChoice()) {
                case ToolChoice.Required r -> "REQUIRED";
                case ToolChoice.Named n -> "named '" + n.name() + "'";
                case null, default -> null;
            };
            if (forced != null) {
                throw WireSupport.refusal(provider, "tool choice " + forced + " cannot be combined with extended "
                        + "thinking: Anthropic allows only AUTO or NONE while thinking");
            }
            if (options.temperature() != null) {
                throw WireSupport.refusal(provider, "temperature cannot be set while extended thinking is on");
            }
            if (options.topP() != null && options.topP() < 0.95) {
                throw WireSupport.refusal(provider, "topP must be between 0.95 and 1 while extended thinking is on, was "
                        + options.topP());
            }
        }
        if (options.temperature() != null && options.temperature() > 1) {
            throw WireSupport.refusal(provider, "temperature must be between 0 and 1, was " + options.temperature());
        }
        Duration ttl = options.cache() == null ? null : options.cache().ttl();
        if (ttl != null && !ttl.equals(FIVE_MINUTES) && !ttl.equals(ONE_HOUR)) {
            throw WireSupport.refusal(provider, "cache ttl must be 5 minutes or 1 hour, was " + ttl);
        }
        if (options.responseFormat() instanceof ResponseFormat.JsonSchema f) {
            WireSupport.checkSchema(provider, f, memo);
        }
        if (json == JsonMode.TOOL) {
            if (thinking) {
                throw WireSupport.refusal(provider, "a JSON response format on model '" + model
                        + "' needs a forced tool, which extended thinking does not allow");
            }
            for (ToolDefinition t : tools) {
                if (t.name().equals(FINAL_ANSWER)) {
                    throw WireSupport.refusal(provider, "a tool is named '" + FINAL_ANSWER
                            + "', the name the JSON response format's forced tool needs");
                }
            }
        }
    }

    private static void writeCacheControl(JsonGenerator gen, Duration ttl) {
        gen.writeName("cache_control");
        gen.writeStartObject();
        gen.writeStringProperty("type", "ephemeral");
        if (ONE_HOUR.equals(ttl)) {
            gen.writeStringProperty("ttl", "1h");
        }
        gen.writeEndObject();
    }

    /**
     * The tool choice on the wire. In tool mode the answer tool is forced when no other tool is
     * offered or the choice is NONE, and any tool (a real one or the answer) otherwise; a named
     * choice is kept.
     */
    private static void writeToolChoice(JsonGenerator gen, ToolChoice choice, boolean finalAnswer, boolean otherTools) {
        String type;
        String name = null;
        if (finalAnswer && !(choice instanceof ToolChoice.Named)) {
            if (!otherTools || choice instanceof ToolChoice.None) {
                type = "tool";
                name = FINAL_ANSWER;
            } else {
                type = "any";
            }
        } else {
            switch (choice) {
                case null -> {
                    return;
                }
                case ToolChoice.Auto a -> type = "auto";
                case ToolChoice.None n -> type = "none";
                case ToolChoice.Required r -> type = "any";
                case ToolChoice.Named n -> {
                    type = "tool";
                    name = n.name();
                }
            }
        }
        gen.writeName("tool_choice");
        gen.writeStartObject();
        gen.writeStringProperty("type", type);
        if (name != null) {
            gen.writeStringProperty("name", name);
        }
        gen.writeEndObject();
    }

    /**
     * Which parts a message of each side can carry; the rest (custom parts included) are skipped.
     * Text blocks must hold more than white space, or the API rejects the whole request.
     */
    private static boolean sendable(Part p, boolean assistant) {
        return switch (p) {
            case Text t -> !t.text().isBlank();
            case ToolCall c -> assistant;
            case Thinking t -> assistant && WireSupport.ownOrUnknown(t, ORIGIN)
                    && (t.redacted() || (t.signature() != null && !t.signature().isEmpty()));
            case Image i -> !assistant;
            case ToolResult r -> !assistant;
            default -> false;
        };
    }

    /**
     * Whether the request answers tool calls whose assistant message does not start with a
     * thinking block Anthropic signed: with thinking on, Anthropic refuses such a request
     * ("a final assistant message must start with a thinking block"), as it happens when another
     * provider made the calls.
     */
    private static boolean toolTurnWithoutThinking(List<WireMessage> wire) {
        for (int i = wire.size() - 1; i >= 0; i--) {
            WireMessage m = wire.get(i);
            if (m.role().equals("assistant")) {
                return m.parts().stream().anyMatch(p -> p instanceof ToolCall) && !(m.parts().getFirst() instanceof Thinking);
            }
            if (m.parts().stream().noneMatch(p -> p instanceof ToolResult)) {
                return false;
            }
        }
        return false;
    }

    private void writeMessage(JsonGenerator gen, WireMessage m, boolean cacheLast, Duration ttl) {
        // In a user message the tool results must come first; the breakpoint goes on the last
        // block written that can carry one (never a thinking block).
        Part breakpoint = null;
        if (cacheLast) {
            for (Part p : m.parts()) {
                if (!(p instanceof ToolResult) && !(p instanceof Thinking)) {
                    breakpoint = p;
                }
            }
            if (breakpoint == null) {
                for (Part p : m.parts()) {
                    if (p instanceof ToolResult) {
                        breakpoint = p;
                    }
                }
            }
        }
        gen.writeStartObject();
        gen.writeStringProperty("role", m.role());
        gen.writeName("content");
        gen.writeStartArray();
        for (Part p : m.parts()) {
            if (p instanceof ToolResult r) {
                writeToolResult(gen, r, p == breakpoint, ttl);
            }
        }
        for (Part p : m.parts()) {
            switch (p) {
                case Text t -> writeText(gen, t.text(), p == breakpoint, ttl);
                case Image i -> writeImage(gen, i, p == breakpoint, ttl);
                case ToolCall c -> writeToolUse(gen, c, p == breakpoint, ttl);
                case Thinking t -> writeThinking(gen, t);
                default -> { }
            }
        }
        gen.writeEndArray();
        gen.writeEndObject();
    }

    private static void writeText(JsonGenerator gen, String text, boolean cached, Duration ttl) {
        gen.writeStartObject();
        gen.writeStringProperty("type", "text");
        gen.writeStringProperty("text", text);
        if (cached) {
            writeCacheControl(gen, ttl);
        }
        gen.writeEndObject();
    }

    private static void writeImage(JsonGenerator gen, Image image, boolean cached, Duration ttl) {
        gen.writeStartObject();
        gen.writeStringProperty("type", "image");
        gen.writeName("source");
        gen.writeStartObject();
        String[] dataUrl = image.isUrl() ? WireSupport.splitDataUrl(image.url()) : null;
        if (image.isUrl() && dataUrl == null) {
            gen.writeStringProperty("type", "url");
            gen.writeStringProperty("url", image.url());
        } else {
            gen.writeStringProperty("type", "base64");
            gen.writeStringProperty("media_type", dataUrl != null ? dataUrl[0] : image.mediaType());
            gen.writeStringProperty("data", dataUrl != null ? dataUrl[1] : image.base64());
        }
        gen.writeEndObject();
        if (cached) {
            writeCacheControl(gen, ttl);
        }
        gen.writeEndObject();
    }

    private void writeToolUse(JsonGenerator gen, ToolCall call, boolean cached, Duration ttl) {
        gen.writeStartObject();
        gen.writeStringProperty("type", "tool_use");
        gen.writeStringProperty("id", WireSupport.wireId(call.id(), MAX_ID));
        gen.writeStringProperty("name", call.name());
        gen.writeName("input");
        if (memo.isJsonObject(call.arguments())) {
            gen.writeRawValue(call.arguments().strip());
        } else {
            // The API takes only an object; the model's malformed arguments cannot be sent back as they are.
            LOG.debug("{}: tool call {} has arguments that are not a JSON object; sending {{}}", provider, call.id());
            gen.writeStartObject();
            gen.writeEndObject();
        }
        if (cached) {
            writeCacheControl(gen, ttl);
        }
        gen.writeEndObject();
    }

    private static void writeThinking(JsonGenerator gen, Thinking t) {
        gen.writeStartObject();
        if (t.redacted()) {
            gen.writeStringProperty("type", "redacted_thinking");
            gen.writeStringProperty("data", t.signature());
        } else {
            gen.writeStringProperty("type", "thinking");
            gen.writeStringProperty("thinking", t.text());
            gen.writeStringProperty("signature", t.signature());
        }
        gen.writeEndObject();
    }

    private static void writeToolResult(JsonGenerator gen, ToolResult r, boolean cached, Duration ttl) {
        gen.writeStartObject();
        gen.writeStringProperty("type", "tool_result");
        gen.writeStringProperty("tool_use_id", WireSupport.wireId(r.toolCallId(), MAX_ID));
        boolean onlyText = r.content().stream().allMatch(p -> p instanceof Text);
        if (onlyText) {
            if (!r.content().isEmpty()) {
                gen.writeStringProperty("content", r.text());
            }
        } else {
            gen.writeName("content");
            gen.writeStartArray();
            for (Part p : r.content()) {
                if (p instanceof Text t && !t.text().isBlank()) {
                    writeText(gen, t.text(), false, null);
                } else if (p instanceof Image i) {
                    writeImage(gen, i, false, null);
                }
            }
            gen.writeEndArray();
        }
        if (r.isError()) {
            gen.writeBooleanProperty("is_error", true);
        }
        if (cached) {
            writeCacheControl(gen, ttl);
        }
        gen.writeEndObject();
    }

    // ---- reply --------------------------------------------------------------------------

    @Override
    public ModelResponse reply(byte[] body, ModelRequest request) {
        JsonNode root = WireSupport.parseObject(provider, body, "the reply");
        if ("error".equals(text(root, "type"))) {
            throw streamError(root);
        }
        JsonNode content = root.get("content");
        if (content == null || !content.isArray()) {
            throw invalid(provider, "the reply has no content array", null);
        }
        List<Part> parts = new ArrayList<>(content.size());
        for (int i = 0; i < content.size(); i++) {
            JsonNode block = content.get(i);
            String type = text(block, "type");
            Part part = switch (type == null ? "" : type) {
                case "text" -> textPart(text(block, "text"));
                case "tool_use" -> toolCall(i, text(block, "id"), text(block, "name"), arguments(block.get("input")));
                case "thinking" -> Thinking.of(orEmpty(text(block, "thinking")), emptyToNull(text(block, "signature")))
                        .withOrigin(ORIGIN);
                case "redacted_thinking" -> redacted(i, text(block, "data"));
                default -> {
                    LOG.debug("{}: skipping a content block of unknown type '{}'", provider, type);
                    yield null;
                }
            };
            if (part != null) {
                parts.add(part);
            }
        }
        String stop = text(root, "stop_reason");
        JsonNode usage = root.get("usage");
        return response(parts, text(root, "model"), text(root, "id"), stop,
                usage != null && usage.isObject() ? new UsageCounts().update(usage).usage() : null, toolMode(request));
    }

    /**
     * The response around a reply's parts. In tool mode, the answer tool's call becomes the
     * reply's text (compact JSON) with stop reason END_TURN when it is the only call; beside
     * other calls it is dropped.
     */
    ModelResponse response(List<Part> parts, String model, String id, String stop, Usage usage, boolean toolMode) {
        StopReason neutral = stopReason(stop);
        if (toolMode) {
            int calls = 0;
            int answers = 0;
            for (Part p : parts) {
                if (p instanceof ToolCall c) {
                    calls++;
                    if (c.name().equals(FINAL_ANSWER)) {
                        answers++;
                    }
                }
            }
            if (answers > 0) {
                boolean only = answers == calls;
                List<Part> kept = new ArrayList<>(parts.size());
                for (Part p : parts) {
                    if (p instanceof ToolCall c && c.name().equals(FINAL_ANSWER)) {
                        if (only) {
                            kept.add(new Text(c.arguments()));
                        } else {
                            LOG.debug("{}: dropping the {} call {} beside the reply's other tool calls", provider,
                                    FINAL_ANSWER, c.id());
                        }
                    } else {
                        kept.add(p);
                    }
                }
                parts = kept;
                if (only) {
                    neutral = StopReason.END_TURN;
                }
            }
        }
        return WireSupport.reply(provider, parts, model, id, neutral, stop, usage);
    }

    static Part textPart(String text) {
        return text == null || text.isEmpty() ? null : new Text(text);
    }

    ToolCall toolCall(int index, String id, String name, String arguments) {
        if (id == null || id.isBlank() || name == null || name.isBlank()) {
            throw invalid(provider, "content block " + index + " is a tool_use without an id or a name", null);
        }
        return new ToolCall(id, name, arguments);
    }

    Thinking redacted(int index, String data) {
        if (data == null || data.isBlank()) {
            throw invalid(provider, "content block " + index + " is a redacted_thinking without data", null);
        }
        return Thinking.redacted(data).withOrigin(ORIGIN);
    }

    private static String arguments(JsonNode input) {
        if (input == null || input.isNull()) {
            return "{}";
        }
        return WireSupport.compact(input);
    }

    static String orEmpty(String s) {
        return s == null ? "" : s;
    }

    static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    static StopReason stopReason(String stop) {
        if (stop == null) {
            return null;
        }
        return switch (stop) {
            case "end_turn" -> StopReason.END_TURN;
            case "tool_use" -> StopReason.TOOL_USE;
            case "max_tokens" -> StopReason.MAX_TOKENS;
            case "stop_sequence" -> StopReason.STOP_SEQUENCE;
            case "refusal" -> StopReason.REFUSAL;
            case "pause_turn" -> StopReason.PAUSE_TURN;
            case "model_context_window_exceeded" -> StopReason.CONTEXT_WINDOW_EXCEEDED;
            default -> StopReason.OTHER;
        };
    }

    /**
     * Anthropic's four token counts; each update replaces the counts it carries (stream usage
     * is cumulative, never to be added up).
     */
    static final class UsageCounts {
        private Long input;
        private Long output;
        private Long cacheRead;
        private Long cacheWrite;
        private boolean seen;

        UsageCounts update(JsonNode usage) {
            input = orOld(count(usage, "input_tokens"), input);
            output = orOld(count(usage, "output_tokens"), output);
            cacheRead = orOld(count(usage, "cache_read_input_tokens"), cacheRead);
            cacheWrite = orOld(count(usage, "cache_creation_input_tokens"), cacheWrite);
            seen = true;
            return this;
        }

        Usage usage() {
            return seen ? new Usage(zero(input), zero(output), zero(cacheRead), zero(cacheWrite)) : null;
        }

        private static Long orOld(Long v, Long old) {
            return v != null ? v : old;
        }

        private static long zero(Long v) {
            return v == null ? 0 : v;
        }
    }

    // ---- streaming ----------------------------------------------------------------------

    @Override
    public StreamDecoder decoder(ModelRequest request, StreamListener listener) {
        return new AnthropicStreamDecoder(this, listener, toolMode(request));
    }

    // ---- errors -------------------------------------------------------------------------

    @Override
    public ModelException error(ErrorResponse response) {
        JsonNode root = WireSupport.tryParse(response.body());
        JsonNode error = root == null ? null : root.get("error");
        String type = error == null ? null : text(error, "type");
        String message = error == null ? null : text(error, "message");
        String code = error == null ? null : text(error.path("details"), "error_code");
        String requestId = response.header("request-id").orElse(root == null ? null : text(root, "request_id"));
        Kind kind = kind(type, message, code, response.status());
        return response.toException(kind, message != null ? message : response.bodyExcerpt(), requestId).build();
    }

    /** An error object that arrived with HTTP 200: an {@code error} event, or an error body. */
    ModelException streamError(JsonNode root) {
        JsonNode error = root.path("error");
        String type = text(error, "type");
        String message = text(error, "message");
        Kind kind = kind(type, message, text(error.path("details"), "error_code"), 0);
        return ModelException.builder(kind).provider(provider)
                .providerMessage(message != null ? message : "error event of type " + type)
                .requestId(text(root, "request_id"))
                .build();
    }

    static Kind kind(String type, String message, String code, int status) {
        String lower = message == null ? "" : message.toLowerCase(Locale.ROOT);
        // "prompt is too long: N tokens > M maximum", "input length and `max_tokens` exceed context
        // limit: N + M > L" when the prompt fits but not with the requested output; and from
        // compatible servers in OpenAI's words (llama.cpp: "exceed_context_size_error").
        if (WireSupport.contextOverflow(type, code, message)) {
            return Kind.CONTEXT_LENGTH_EXCEEDED;
        }
        if (type == null) {
            return status == 0 ? Kind.SERVER : ErrorResponse.kindForStatus(status);
        }
        return switch (type) {
            case "invalid_request_error" ->
                    lower.startsWith("you have reached your specified") ? Kind.QUOTA_EXCEEDED : Kind.INVALID_REQUEST;
            case "authentication_error" -> Kind.AUTHENTICATION;
            case "permission_error" -> Kind.PERMISSION;
            case "not_found_error" -> Kind.NOT_FOUND;
            case "billing_error" -> Kind.QUOTA_EXCEEDED;
            case "rate_limit_error" -> "enforced_spend_limit_reached".equals(code) ? Kind.QUOTA_EXCEEDED : Kind.RATE_LIMITED;
            case "request_too_large" -> Kind.INVALID_REQUEST;
            case "api_error" -> Kind.SERVER;
            case "timeout_error" -> Kind.TIMEOUT;
            case "overloaded_error" -> Kind.OVERLOADED;
            default -> status == 0 ? Kind.SERVER : ErrorResponse.kindForStatus(status);
        };
    }
}
