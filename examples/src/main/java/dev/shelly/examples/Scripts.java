package dev.shelly.examples;

import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.testing.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Helpers for the examples' scripts: steps whose tool calls depend on what the scripted model
 * has seen, and readers of what it has seen.
 */
final class Scripts {
    static final JsonMapper JSON = JsonMapper.builder().build();

    private Scripts() {}

    /** A step calling tools whose names and arguments are computed from the chat. */
    static Step.Answer calls(Function<ModelRequest, List<Step.Call>> calls) {
        return Step.answer(chat -> {
            int first = countToolCalls(chat);
            List<Part> parts = new ArrayList<>();
            List<Step.Call> list = calls.apply(chat);
            for (int i = 0; i < list.size(); i++) {
                parts.add(new ToolCall("call_" + (first + i + 1), list.get(i).name(), list.get(i).arguments()));
            }
            return new Message(Step.SENDER, Role.ASSISTANT, parts);
        });
    }

    /** A step calling one tool with arguments computed from the chat. */
    static Step.Answer call(String tool, Function<ModelRequest, String> arguments) {
        return calls(chat -> List.of(new Step.Call(tool, arguments.apply(chat))));
    }

    private static int countToolCalls(ModelRequest chat) {
        int n = 0;
        for (Message m : chat.messages()) {
            n += m.toolCalls().size();
        }
        return n;
    }

    /** The texts of the results in the chat's last tool message, in call order. */
    static List<String> lastResults(ModelRequest chat) {
        List<Message> messages = chat.messages();
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i).role() == Role.TOOL) {
                return messages.get(i).toolResults().stream().map(ToolResult::text).toList();
            }
        }
        return List.of();
    }

    /** The texts of every tool result in the chat, in order. */
    static List<String> allResults(ModelRequest chat) {
        List<String> results = new ArrayList<>();
        for (Message m : chat.messages()) {
            m.toolResults().forEach(r -> results.add(r.text()));
        }
        return results;
    }

    /** The text of the chat's last tool result, or empty text. */
    static String lastResult(ModelRequest chat) {
        List<String> results = lastResults(chat);
        return results.isEmpty() ? "" : results.getLast();
    }

    /** The texts of the user messages, in order. */
    static String userText(ModelRequest chat) {
        StringBuilder sb = new StringBuilder();
        for (Message m : chat.messages()) {
            if (m.role() == Role.USER) {
                sb.append(m.text()).append('\n');
            }
        }
        return sb.toString();
    }

    /**
     * The {@code result} (or {@code error}) of each task of a delegation, from the last tool
     * result: {@code [{"agent":"a","result":"..."}]}.
     */
    static List<String> delegationResults(ModelRequest chat) {
        JsonNode array = tree(lastResult(chat));
        List<String> results = new ArrayList<>();
        if (array.isArray()) {
            for (JsonNode r : array) {
                JsonNode text = r.has("result") ? r.get("result") : r.get("error");
                results.add(text == null ? "" : text.asString());
            }
        }
        return results;
    }

    /** Parses JSON, or gives a missing node for text that is not JSON. */
    static JsonNode tree(String json) {
        try {
            return JSON.readTree(json);
        } catch (JacksonException e) {
            return JSON.missingNode();
        }
    }

    /** A JSON object of string fields, e.g. {@code object("city", "Paris")}. */
    static String object(String... namesAndValues) {
        ObjectNode o = JSON.createObjectNode();
        for (int i = 0; i + 1 < namesAndValues.length; i += 2) {
            o.put(namesAndValues[i], namesAndValues[i + 1]);
        }
        return o.toString();
    }

    /** A JSON array of strings. */
    static ArrayNode array(List<String> values) {
        ArrayNode a = JSON.createArrayNode();
        values.forEach(a::add);
        return a;
    }
}
