package dev.shelly.providers.anthropic;

import static dev.shelly.providers.internal.WireSupport.count;
import static dev.shelly.providers.internal.WireSupport.invalid;
import static dev.shelly.providers.internal.WireSupport.text;

import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.Usage;
import dev.shelly.provider.spi.ErrorResponse;
import dev.shelly.providers.internal.WireSupport;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * What the Anthropic Messages API sends back, read: a reply (and the pieces a streamed one is
 * assembled from), its stop reason and usage, and its errors, whether they come as an HTTP error
 * response or as an error object after HTTP 200.
 */
final class AnthropicReply {
    private static final Logger LOG = LoggerFactory.getLogger(AnthropicReply.class);

    private final String provider;

    AnthropicReply(String provider) {
        this.provider = provider;
    }

    String provider() {
        return provider;
    }

    /** A complete (non-streamed) reply; in tool mode the answer tool's call is the reply's text. */
    ModelResponse reply(byte[] body, boolean toolMode) {
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
                        .withOrigin(AnthropicFormat.ORIGIN);
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
                usage != null && usage.isObject() ? new UsageCounts().update(usage).usage() : null, toolMode);
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
                    if (c.name().equals(AnthropicFormat.FINAL_ANSWER)) {
                        answers++;
                    }
                }
            }
            if (answers > 0) {
                boolean only = answers == calls;
                List<Part> kept = new ArrayList<>(parts.size());
                for (Part p : parts) {
                    if (p instanceof ToolCall c && c.name().equals(AnthropicFormat.FINAL_ANSWER)) {
                        if (only) {
                            kept.add(new Text(c.arguments()));
                        } else {
                            LOG.debug("{}: dropping the {} call {} beside the reply's other tool calls", provider,
                                    AnthropicFormat.FINAL_ANSWER, c.id());
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
        return Thinking.redacted(data).withOrigin(AnthropicFormat.ORIGIN);
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

    // ---- errors -------------------------------------------------------------------------

    /** An HTTP error response as the failure to throw. */
    ModelException error(ErrorResponse response) {
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
