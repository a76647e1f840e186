package dev.shelly.otel;

import dev.shelly.chats.Image;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import java.io.StringWriter;
import java.util.Base64;
import java.util.List;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Messages as the GenAI conventions' JSON schemas for
 * {@code gen_ai.input.messages}, {@code gen_ai.output.messages} and
 * {@code gen_ai.system_instructions} write them, recorded on spans as JSON strings: each
 * message {@code {"role", "parts"}}, each part typed {@code text}, {@code reasoning},
 * {@code tool_call} (arguments as an object when they are one), {@code tool_call_response},
 * {@code uri} or {@code blob}.
 */
final class Content {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private Content() {}

    /**
     * The system messages' parts, as {@code gen_ai.system_instructions}.
     *
     * @param messages the request's messages
     * @return the JSON array, or null when there is no system message
     */
    static String systemInstructions(List<Message> messages) {
        boolean any = false;
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartArray();
            for (Message m : messages) {
                if (m.role() == Role.SYSTEM) {
                    any = true;
                    for (Part p : m.parts()) {
                        part(g, p);
                    }
                }
            }
            g.writeEndArray();
        }
        return any ? out.toString() : null;
    }

    /**
     * The other messages, in order, as {@code gen_ai.input.messages}.
     *
     * @param messages the request's messages
     * @return the JSON array
     */
    static String inputMessages(List<Message> messages) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartArray();
            for (Message m : messages) {
                if (m.role() != Role.SYSTEM) {
                    message(g, m, null);
                }
            }
            g.writeEndArray();
        }
        return out.toString();
    }

    /**
     * The reply, as {@code gen_ai.output.messages}.
     *
     * @param reply the assistant's message
     * @param finishReason why the model stopped
     * @return the JSON array of one message
     */
    static String outputMessages(Message reply, String finishReason) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartArray();
            message(g, reply, finishReason);
            g.writeEndArray();
        }
        return out.toString();
    }

    /**
     * A tool result's text, as {@code gen_ai.tool.call.result}.
     *
     * @param result the result
     * @return its text parts, joined
     */
    static String toolResult(ToolResult result) {
        return result.text();
    }

    private static void message(JsonGenerator g, Message m, String finishReason) {
        g.writeStartObject();
        g.writeStringProperty("role", role(m.role()));
        g.writeArrayPropertyStart("parts");
        for (Part p : m.parts()) {
            part(g, p);
        }
        g.writeEndArray();
        if (finishReason != null) {
            g.writeStringProperty("finish_reason", finishReason);
        }
        g.writeEndObject();
    }

    private static String role(Role role) {
        return switch (role) {
            case SYSTEM -> "system";
            case USER -> "user";
            case ASSISTANT -> "assistant";
            case TOOL -> "tool";
        };
    }

    private static void part(JsonGenerator g, Part p) {
        g.writeStartObject();
        switch (p) {
            case Text t -> {
                g.writeStringProperty("type", "text");
                g.writeStringProperty("content", t.text());
            }
            case Thinking t -> {
                g.writeStringProperty("type", "reasoning");
                g.writeStringProperty("content", t.redacted() ? "" : t.text());
            }
            case ToolCall c -> {
                g.writeStringProperty("type", "tool_call");
                g.writeStringProperty("id", c.id());
                g.writeStringProperty("name", c.name());
                g.writeName("arguments");
                JsonNode args = arguments(c.arguments());
                if (args != null) {
                    g.writePOJO(args);
                } else {
                    g.writeString(c.arguments());
                }
            }
            case ToolResult r -> {
                g.writeStringProperty("type", "tool_call_response");
                g.writeStringProperty("id", r.toolCallId());
                g.writeStringProperty("response", r.text());
            }
            case Image i -> {
                if (i.url() != null) {
                    g.writeStringProperty("type", "uri");
                    g.writeStringProperty("modality", "image");
                    g.writeStringProperty("uri", i.url());
                } else {
                    g.writeStringProperty("type", "blob");
                    g.writeStringProperty("modality", "image");
                    g.writeStringProperty("mime_type", i.mediaType());
                    g.writeStringProperty("content", Base64.getEncoder().encodeToString(i.data()));
                }
            }
            default -> g.writeStringProperty("type", p.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT));
        }
        g.writeEndObject();
    }

    private static JsonNode arguments(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            JsonNode node = JSON.readTree(text);
            return node.isObject() ? node : null;
        } catch (RuntimeException e) {
            return null;
        }
    }
}
