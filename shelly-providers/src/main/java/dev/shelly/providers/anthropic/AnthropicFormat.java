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
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelException.Kind;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.modeladapter.Usage;
import dev.shelly.modeladapter.http.ErrorResponse;
import dev.shelly.modeladapter.http.StreamDecoder;
import dev.shelly.modeladapter.http.WireFormat;
import dev.shelly.providers.internal.WireSupport;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;

/** The Anthropic Messages API on the wire. */
final class AnthropicFormat implements WireFormat {
    private static final Logger LOG = LoggerFactory.getLogger(AnthropicFormat.class);

    private final String provider;
    private final String model;
    private final int maxTokens;
    private final OptionalDouble temperature;
    private final OptionalInt thinkingBudget;

    AnthropicFormat(String provider, String model, int maxTokens, OptionalDouble temperature, OptionalInt thinkingBudget) {
        this.provider = provider;
        this.model = model;
        this.maxTokens = maxTokens;
        this.temperature = temperature;
        this.thinkingBudget = thinkingBudget;
    }

    @Override
    public String provider() {
        return provider;
    }

    @Override
    public String path() {
        return "v1/messages";
    }

    // ---- request ------------------------------------------------------------------------

    /** One message on the wire: a role and the parts it carries, after merging. */
    private record WireMessage(String role, List<Part> parts) {}

    @Override
    public byte[] request(ModelRequest request, boolean stream) {
        List<Message> messages = request.messages();
        List<ToolDefinition> tools = request.tools();
        ModelOptions options = request.options();
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
        return WireSupport.write(4096, gen -> {
            gen.writeStartObject();
            gen.writeStringProperty("model", model);
            gen.writeNumberProperty("max_tokens", options.maxTokens() != null ? options.maxTokens() : maxTokens);
            if (options.temperature() != null || temperature.isPresent()) {
                gen.writeName("temperature");
                gen.writeNumber(options.temperature() != null ? options.temperature() : temperature.getAsDouble());
            }
            if (thinkingBudget.isPresent()) {
                gen.writeName("thinking");
                gen.writeStartObject();
                gen.writeStringProperty("type", "enabled");
                gen.writeNumberProperty("budget_tokens", thinkingBudget.getAsInt());
                gen.writeEndObject();
            }
            if (!system.isEmpty()) {
                gen.writeStringProperty("system", system.toString());
            }
            gen.writeName("messages");
            gen.writeStartArray();
            for (WireMessage m : wire) {
                writeMessage(gen, m);
            }
            gen.writeEndArray();
            if (!tools.isEmpty()) {
                gen.writeName("tools");
                gen.writeStartArray();
                for (ToolDefinition t : tools) {
                    gen.writeStartObject();
                    WireSupport.writeToolFields(gen, t, "input_schema");
                    gen.writeEndObject();
                }
                gen.writeEndArray();
            }
            if (stream) {
                gen.writeBooleanProperty("stream", true);
            }
            gen.writeEndObject();
        });
    }

    /**
     * Which parts a message of each side can carry; the rest (custom parts included) are skipped.
     * Text blocks must hold more than white space, or the API rejects the whole request.
     */
    private static boolean sendable(Part p, boolean assistant) {
        return switch (p) {
            case Text t -> !t.text().isBlank();
            case ToolCall c -> assistant;
            case Thinking t -> assistant && (t.redacted() || (t.signature() != null && !t.signature().isEmpty()));
            case Image i -> !assistant;
            case ToolResult r -> !assistant;
            default -> false;
        };
    }

    private void writeMessage(JsonGenerator gen, WireMessage m) {
        gen.writeStartObject();
        gen.writeStringProperty("role", m.role());
        gen.writeName("content");
        gen.writeStartArray();
        // In a user message the tool results must come first.
        for (Part p : m.parts()) {
            if (p instanceof ToolResult r) {
                writeToolResult(gen, r);
            }
        }
        for (Part p : m.parts()) {
            switch (p) {
                case Text t -> writeText(gen, t.text());
                case Image i -> writeImage(gen, i);
                case ToolCall c -> writeToolUse(gen, c);
                case Thinking t -> writeThinking(gen, t);
                default -> { }
            }
        }
        gen.writeEndArray();
        gen.writeEndObject();
    }

    private static void writeText(JsonGenerator gen, String text) {
        gen.writeStartObject();
        gen.writeStringProperty("type", "text");
        gen.writeStringProperty("text", text);
        gen.writeEndObject();
    }

    private static void writeImage(JsonGenerator gen, Image image) {
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
        gen.writeEndObject();
    }

    private void writeToolUse(JsonGenerator gen, ToolCall call) {
        gen.writeStartObject();
        gen.writeStringProperty("type", "tool_use");
        gen.writeStringProperty("id", call.id());
        gen.writeStringProperty("name", call.name());
        gen.writeName("input");
        if (WireSupport.isJsonObject(call.arguments())) {
            gen.writeRawValue(call.arguments().strip());
        } else {
            // The API takes only an object; the model's malformed arguments cannot be sent back as they are.
            LOG.debug("{}: tool call {} has arguments that are not a JSON object; sending {{}}", provider, call.id());
            gen.writeStartObject();
            gen.writeEndObject();
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

    private static void writeToolResult(JsonGenerator gen, ToolResult r) {
        gen.writeStartObject();
        gen.writeStringProperty("type", "tool_result");
        gen.writeStringProperty("tool_use_id", r.toolCallId());
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
                    writeText(gen, t.text());
                } else if (p instanceof Image i) {
                    writeImage(gen, i);
                }
            }
            gen.writeEndArray();
        }
        if (r.isError()) {
            gen.writeBooleanProperty("is_error", true);
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
                case "thinking" -> Thinking.of(orEmpty(text(block, "thinking")), emptyToNull(text(block, "signature")));
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
        return WireSupport.reply(provider, parts, text(root, "model"), text(root, "id"), stopReason(stop), stop,
                usage != null && usage.isObject() ? new UsageCounts().update(usage).usage() : null);
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
        return Thinking.redacted(data);
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
        return new AnthropicStreamDecoder(this, listener);
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
        if (type == null) {
            return status == 0 ? Kind.SERVER : ErrorResponse.kindForStatus(status);
        }
        return switch (type) {
            case "invalid_request_error" -> {
                // "prompt is too long: N tokens > M maximum", and "input length and `max_tokens` exceed
                // context limit: N + M > L" when the prompt fits but not with the requested output.
                if (lower.contains("prompt is too long") || lower.contains("input is too long")
                        || lower.contains("exceed context limit") || lower.contains("context window")
                        || lower.contains("context length")) {
                    yield Kind.CONTEXT_LENGTH_EXCEEDED;
                }
                yield lower.startsWith("you have reached your specified") ? Kind.QUOTA_EXCEEDED : Kind.INVALID_REQUEST;
            }
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
