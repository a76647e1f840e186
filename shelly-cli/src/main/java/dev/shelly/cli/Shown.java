package dev.shelly.cli;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.Usage;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * How tool calls and their results read on one line: {@code → fs_read {"path":"pom.xml"}},
 * {@code ← fs_read: 1 <project ...}; a delegation as the agents and tasks it names.
 */
final class Shown {
    static final JsonMapper JSON = JsonMapper.builder().build();
    /** The longest a line about a tool call gets; the rest is cut with an ellipsis. */
    static final int WIDTH = 160;

    private Shown() {}

    /** The lines that announce a call: one per delegated task, else one. */
    static List<String> call(ToolCall call) {
        if (call.name().equals("delegate")) {
            List<String> lines = new ArrayList<>();
            for (JsonNode task : tree(call.arguments()).path("tasks")) {
                lines.add("→ " + text(task, "agent") + ": " + text(task, "task"));
            }
            if (!lines.isEmpty()) {
                return lines;
            }
        }
        return List.of("→ " + describe(call));
    }

    /** A call as its name and compact JSON arguments; the name alone without arguments. */
    static String describe(ToolCall call) {
        JsonNode args = tree(call.arguments());
        boolean none = args.isObject() && args.isEmpty();
        return call.name() + (none ? "" : " " + (args.isMissingNode() ? call.arguments() : args));
    }

    /** The lines that report a result: one per delegated task, else one. */
    static List<String> result(ToolCall call, ToolResult result) {
        if (call.name().equals("delegate")) {
            List<String> lines = new ArrayList<>();
            for (JsonNode done : tree(result.text())) {
                lines.add(done.has("error") ? "← " + text(done, "agent") + " failed: " + text(done, "error")
                        : "← " + text(done, "agent") + ": " + text(done, "result"));
            }
            if (!lines.isEmpty()) {
                return lines;
            }
        }
        return List.of("← " + call.name() + (result.isError() ? " failed: " : ": ") + result.text());
    }

    /** How many times the person spoke in a conversation: its user messages with text. */
    static long turns(List<Message> messages) {
        return messages.stream().filter(m -> m.role() == Role.USER && !m.text().isBlank()).count();
    }

    /** A count and its noun: {@code 1 turn}, {@code 2 turns}. */
    static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    /** Tokens and cost on one line: {@code 1234 tokens (1000 in, 234 out), $0.0042}. */
    static String usage(Usage usage, Cost cost) {
        String line = usage.totalTokens() + " tokens (" + usage.totalInputTokens() + " in, " + usage.outputTokens()
                + " out), $" + cost.usd().toPlainString();
        return cost.unpricedTokens() > 0 ? line + " and " + cost.unpricedTokens() + " tokens of unpriced models" : line;
    }

    /** Text folded onto one line and cut to {@link #WIDTH}. */
    static String line(String text) {
        String one = text == null ? "" : text.strip().replaceAll("\\s+", " ");
        return one.length() <= WIDTH ? one : one.substring(0, WIDTH - 1) + "…";
    }

    /** JSON text as a tree; a missing node when it is not JSON. */
    static JsonNode tree(String json) {
        try {
            return json == null || json.isBlank() ? JSON.missingNode() : JSON.readTree(json);
        } catch (JacksonException e) {
            return JSON.missingNode();
        }
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.path(field);
        return value.isString() ? value.stringValue() : value.isMissingNode() ? "?" : value.toString();
    }
}
