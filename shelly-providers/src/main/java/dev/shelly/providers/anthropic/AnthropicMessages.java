package dev.shelly.providers.anthropic;

import dev.shelly.chats.Image;
import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.providers.internal.JsonObjectMemo;
import dev.shelly.providers.internal.Turns.Turn;
import dev.shelly.providers.internal.WireSupport;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JsonGenerator;

/**
 * The messages of a request on the Messages API's wire: which parts each side can carry, and
 * each part as a content block (tool results first in a user message), with a cache breakpoint
 * where one is asked for.
 */
final class AnthropicMessages {
    private static final Logger LOG = LoggerFactory.getLogger(AnthropicMessages.class);

    /** The longest tool id sent; Anthropic's ids are about 30 characters. */
    private static final int MAX_ID = 64;

    private final String provider;
    private final JsonObjectMemo memo;

    AnthropicMessages(String provider, JsonObjectMemo memo) {
        this.provider = provider;
        this.memo = memo;
    }

    static void writeCacheControl(JsonGenerator gen, Duration ttl) {
        gen.writeName("cache_control");
        gen.writeStartObject();
        gen.writeStringProperty("type", "ephemeral");
        if (AnthropicFormat.ONE_HOUR.equals(ttl)) {
            gen.writeStringProperty("ttl", "1h");
        }
        gen.writeEndObject();
    }

    /**
     * Which parts a message of each side can carry; the rest (custom parts included) are skipped.
     * Text blocks must hold more than white space, or the API rejects the whole request.
     */
    static boolean sendable(Part p, boolean assistant) {
        return switch (p) {
            case Text t -> !t.text().isBlank();
            case ToolCall c -> assistant;
            case Thinking t -> assistant && WireSupport.ownOrUnknown(t, AnthropicFormat.ORIGIN)
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
    static boolean toolTurnWithoutThinking(List<Turn> turns) {
        for (int i = turns.size() - 1; i >= 0; i--) {
            Turn m = turns.get(i);
            if (m.assistant()) {
                return m.parts().stream().anyMatch(p -> p instanceof ToolCall) && !(m.parts().getFirst() instanceof Thinking);
            }
            if (m.parts().stream().noneMatch(p -> p instanceof ToolResult)) {
                return false;
            }
        }
        return false;
    }

    void writeMessage(JsonGenerator gen, Turn m, boolean cacheLast, Duration ttl) {
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
        gen.writeStringProperty("role", m.assistant() ? "assistant" : "user");
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
}
