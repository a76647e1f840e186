package dev.shelly.console.internal;

import dev.shelly.chats.Image;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.Usage;
import java.math.RoundingMode;
import java.time.Instant;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * How the console writes what it shows as JSON: messages and their parts, usage and cost. Every
 * text goes out as a JSON string, and the page puts it in the document as text.
 */
final class Views {
    static final JsonMapper JSON = JsonMapper.builder().build();

    /** Longest text of one part sent to the page; the page collapses long ones, this only bounds them. */
    static final int MAX_TEXT = 64 * 1024;

    private Views() {}

    static ObjectNode object() {
        return JSON.createObjectNode();
    }

    static String clip(String text) {
        if (text == null) {
            return "";
        }
        return text.length() <= MAX_TEXT ? text
                : text.substring(0, MAX_TEXT) + "\n[… " + (text.length() - MAX_TEXT) + " more characters]";
    }

    /** A message: its sender, role and parts. */
    static ObjectNode message(Message message) {
        ObjectNode m = object();
        m.put("sender", message.sender());
        m.put("role", message.role().name().toLowerCase(java.util.Locale.ROOT));
        ArrayNode parts = m.putArray("parts");
        for (Part part : message.parts()) {
            parts.add(part(part));
        }
        return m;
    }

    static ObjectNode part(Part part) {
        ObjectNode p = object();
        switch (part) {
            case Text t -> p.put("kind", "text").put("text", clip(t.text()));
            case Thinking t -> p.put("kind", "thinking").put("text", t.redacted() ? "[redacted]" : clip(t.text()));
            case ToolCall c -> p.put("kind", "tool_call").put("id", c.id()).put("name", c.name())
                    .put("arguments", clip(c.arguments()));
            case ToolResult r -> p.put("kind", "tool_result").put("id", r.toolCallId()).put("text", clip(r.text()))
                    .put("error", r.isError());
            case Image i -> p.put("kind", "image").put("text", i.isUrl() ? "[image]" : "[image, " + i.mediaType() + "]");
            default -> p.put("kind", part.kind());
        }
        return p;
    }

    static ObjectNode usage(Usage usage) {
        Usage u = usage == null ? Usage.ZERO : usage;
        return object().put("input", u.totalInputTokens()).put("output", u.outputTokens()).put("total", u.totalTokens());
    }

    /** A cost in US dollars, to six places, with the tokens no price covered. */
    static ObjectNode cost(Cost cost) {
        Cost c = cost == null ? Cost.ZERO : cost;
        return object().put("usd", c.usd().setScale(6, RoundingMode.HALF_UP).doubleValue())
                .put("unpriced", c.unpricedTokens());
    }

    static String time(Instant at) {
        return at == null ? null : at.toString();
    }
}
