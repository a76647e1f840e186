package dev.shelly.cli;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * What OpenAI's Chat Completions endpoint accepts, checked as strictly as the service does for
 * the fields a client like Shelly sends: no unknown field at any level, the types of every field,
 * roles and their contents, tool definitions, tool calls with JSON arguments, and every tool call
 * answered by exactly one tool message right after the assistant message that made it.
 */
final class ChatCompletionsRules {
    private static final Set<String> TOP = Set.of("model", "messages", "tools", "tool_choice", "stream", "stream_options",
            "max_tokens", "max_completion_tokens", "temperature", "top_p", "parallel_tool_calls", "response_format",
            "stop", "seed", "user", "n", "presence_penalty", "frequency_penalty", "reasoning_effort", "metadata",
            "store", "prompt_cache_key", "service_tier");
    private static final Map<String, Set<String>> MESSAGE_FIELDS = Map.of(
            "system", Set.of("role", "content", "name"),
            "developer", Set.of("role", "content", "name"),
            "user", Set.of("role", "content", "name"),
            "assistant", Set.of("role", "content", "name", "tool_calls", "refusal"),
            "tool", Set.of("role", "content", "tool_call_id"));
    private static final Pattern TOOL_NAME = Pattern.compile("[a-zA-Z0-9_-]{1,64}");

    private final List<String> problems = new ArrayList<>();

    private ChatCompletionsRules() {}

    /** The problems of a request body, in the words of the check; empty when it is valid. */
    static List<String> check(JsonNode body) {
        ChatCompletionsRules rules = new ChatCompletionsRules();
        rules.request(body);
        return rules.problems;
    }

    private void request(JsonNode body) {
        if (!body.isObject()) {
            problem("the body is not a JSON object");
            return;
        }
        body.propertyNames().forEach(name -> require(TOP.contains(name), "Unrecognized request argument supplied: " + name));
        require(body.path("model").isString() && !body.path("model").stringValue().isBlank(), "model: a string is required");
        if (body.has("stream")) {
            require(body.get("stream").isBoolean(), "stream: must be a boolean");
        }
        if (body.has("stream_options")) {
            require(body.path("stream").asBoolean(false), "stream_options: only allowed when stream is true");
            JsonNode options = body.get("stream_options");
            require(options.isObject() && options.path("include_usage").isBoolean() && options.size() == 1,
                    "stream_options: expected {\"include_usage\": boolean}");
        }
        for (String limit : List.of("max_tokens", "max_completion_tokens")) {
            if (body.has(limit)) {
                require(body.get(limit).isIntegralNumber() && body.get(limit).asLong() > 0, limit + ": a positive integer");
            }
        }
        if (body.has("temperature")) {
            double t = body.get("temperature").asDouble(-1);
            require(body.get("temperature").isNumber() && t >= 0 && t <= 2, "temperature: a number from 0 to 2");
        }
        Set<String> tools = tools(body.path("tools"), body.has("tools"));
        if (body.has("tool_choice")) {
            JsonNode choice = body.get("tool_choice");
            boolean word = choice.isString() && Set.of("none", "auto", "required").contains(choice.stringValue());
            boolean named = choice.isObject() && "function".equals(choice.path("type").asString(""))
                    && tools.contains(choice.path("function").path("name").asString(""));
            require(word || named, "tool_choice: none, auto, required or a named tool of tools");
        }
        messages(body.path("messages"));
    }

    private Set<String> tools(JsonNode tools, boolean present) {
        Set<String> names = new HashSet<>();
        if (!present) {
            return names;
        }
        if (!tools.isArray() || tools.isEmpty()) {
            problem("tools: a non-empty array when present");
            return names;
        }
        for (JsonNode tool : tools) {
            require("function".equals(tool.path("type").asString("")) && tool.size() == 2, "tools[]: {type: function, function}");
            JsonNode function = tool.path("function");
            function.propertyNames().forEach(n -> require(Set.of("name", "description", "parameters", "strict").contains(n),
                    "tools[].function: unknown field " + n));
            String name = function.path("name").asString("");
            require(TOOL_NAME.matcher(name).matches(), "tools[].function.name: '" + name + "' does not match ^[a-zA-Z0-9_-]{1,64}$");
            require(names.add(name), "tools: the name " + name + " is given twice");
            if (function.has("description")) {
                require(function.get("description").isString(), "tools[].function.description: a string");
            }
            if (function.has("parameters")) {
                JsonNode parameters = function.get("parameters");
                require(parameters.isObject() && "object".equals(parameters.path("type").asString("")),
                        "tools[].function.parameters of " + name + ": a JSON schema of type object");
            }
        }
        return names;
    }

    private void messages(JsonNode messages) {
        if (!messages.isArray() || messages.isEmpty()) {
            problem("messages: a non-empty array is required");
            return;
        }
        Set<String> unanswered = new LinkedHashSet<>();
        for (int i = 0; i < messages.size(); i++) {
            JsonNode m = messages.get(i);
            String role = m.path("role").asString("");
            Set<String> fields = MESSAGE_FIELDS.get(role);
            if (fields == null) {
                problem("messages[" + i + "].role: '" + role + "' is not one of system, developer, user, assistant, tool");
                continue;
            }
            for (String name : m.propertyNames()) {
                require(fields.contains(name), "messages[" + i + "]: unknown field " + name);
            }
            if (role.equals("tool")) {
                String id = m.path("tool_call_id").asString("");
                require(unanswered.remove(id), "messages[" + i + "]: tool_call_id '" + id
                        + "' does not answer a tool call of the assistant message before it");
                require(content(m.path("content")), "messages[" + i + "].content: a string or an array of text parts");
                continue;
            }
            require(unanswered.isEmpty(), "messages[" + i + "]: an assistant message with 'tool_calls' must be followed by"
                    + " tool messages responding to each 'tool_call_id'; not answered: " + unanswered);
            unanswered.clear();
            if (role.equals("assistant")) {
                unanswered.addAll(calls(m.path("tool_calls"), m.has("tool_calls"), i));
                boolean contentOk = m.path("content").isNull() || !m.has("content") || content(m.get("content"));
                require(contentOk, "messages[" + i + "].content: a string, an array of text parts, or null");
                require(m.has("tool_calls") || content(m.path("content")), "messages[" + i + "]: content or tool_calls is required");
            } else {
                require(content(m.path("content")), "messages[" + i + "].content: a string or an array of parts");
            }
        }
        require(unanswered.isEmpty(), "the last assistant message's tool calls are not answered: " + unanswered);
    }

    private List<String> calls(JsonNode calls, boolean present, int i) {
        List<String> ids = new ArrayList<>();
        if (!present) {
            return ids;
        }
        if (!calls.isArray() || calls.isEmpty()) {
            problem("messages[" + i + "].tool_calls: a non-empty array when present");
            return ids;
        }
        for (JsonNode call : calls) {
            String id = call.path("id").asString("");
            require(!id.isBlank() && "function".equals(call.path("type").asString("")) && call.size() == 3,
                    "messages[" + i + "].tool_calls[]: {id, type: function, function}");
            JsonNode function = call.path("function");
            require(function.path("name").isString() && function.path("arguments").isString() && function.size() == 2,
                    "messages[" + i + "].tool_calls[].function: {name, arguments as a string}");
            require(isJsonObject(function.path("arguments").asString("")),
                    "messages[" + i + "].tool_calls[].function.arguments: not the text of a JSON object");
            ids.add(id);
        }
        return ids;
    }

    private static boolean content(JsonNode content) {
        if (content.isString()) {
            return true;
        }
        if (!content.isArray() || content.isEmpty()) {
            return false;
        }
        for (JsonNode part : content) {
            String type = part.path("type").asString("");
            boolean text = type.equals("text") && part.path("text").isString();
            boolean image = type.equals("image_url") && part.path("image_url").path("url").isString();
            if (!text && !image) {
                return false;
            }
        }
        return true;
    }

    private static boolean isJsonObject(String text) {
        try {
            return Shown.JSON.readTree(text).isObject();
        } catch (JacksonException e) {
            return false;
        }
    }

    private void require(boolean ok, String problem) {
        if (!ok) {
            problem(problem);
        }
    }

    private void problem(String problem) {
        problems.add(problem);
    }
}
