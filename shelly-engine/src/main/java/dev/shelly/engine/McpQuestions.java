package dev.shelly.engine;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.Answer;
import dev.shelly.agent.Approvals;
import dev.shelly.agent.PendingCall;
import dev.shelly.agent.RunContext;
import dev.shelly.mcp.McpElicitation;
import dev.shelly.tools.ToolContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * An MCP server's elicitation as a question to the person ({@code elicitation: true}): asked
 * through the approvals of the run whose tool call the server was serving (a
 * {@link PendingCall.Kind#QUESTION} in {@code Approvals#pending()}, announced to the run's listener
 * as an {@link AgentEvent.DecisionNeeded}), in words a person can answer on a terminal. The reply
 * is read as the form's values and checked against the requested schema, defaults included; an
 * answer that does not fit is asked again, saying what is wrong, up to {@value #ATTEMPTS} times.
 */
final class McpQuestions {
    /** How long a server's question waits for the person. */
    static final Duration TIMEOUT = Duration.ofMinutes(10);
    /** How often a question is asked before the server is told the person cancelled. */
    static final int ATTEMPTS = 3;

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final TypeReference<Map<String, Object>> FORM = new TypeReference<>() {};

    private McpQuestions() {}

    /**
     * Asks the person. A reply is the answer: for a form of one field its value (an option by its
     * value or title, {@code yes}/{@code no}, a number, a comma-separated list; nothing for the
     * default), else a JSON object of the fields. A deny declines; without approvals (no person),
     * or after {@value #ATTEMPTS} answers that do not fit, the question is cancelled.
     */
    static McpElicitation.Answer ask(McpElicitation request) throws InterruptedException {
        ToolContext caller = request.caller();
        RunContext run = caller == null ? null : caller.values().get(RunContext.KEY).orElse(null);
        Approvals approvals = run == null ? null : run.approvals().orElse(null);
        if (approvals == null) {
            return new McpElicitation.Answer(McpElicitation.Action.CANCEL, Map.of());
        }
        AgentEvent.Source source = new AgentEvent.Source(caller.agent(), caller.parent(), caller.depth(), caller.runId(),
                caller.parentRunId(), caller.sessionId());
        String question = question(request);
        String wrong = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            Answer answer = approvals.ask(caller.agent(), wrong == null ? question : "That answer does not fit: " + wrong
                    + ".\n" + question, TIMEOUT, call -> run.listener().onEvent(new AgentEvent.DecisionNeeded(source, call)));
            if (!(answer instanceof Answer.Reply reply)) {
                return McpElicitation.Answer.decline();
            }
            Map<String, Object> content;
            try {
                content = content(request, reply.text());
            } catch (IllegalArgumentException e) {
                wrong = e.getMessage();
                continue;
            }
            Optional<String> problem = request.check(content);
            if (problem.isEmpty()) {
                return McpElicitation.Answer.accept(content);
            }
            wrong = problem.get();
        }
        return new McpElicitation.Answer(McpElicitation.Action.CANCEL, Map.of());
    }

    private static Map<?, ?> properties(McpElicitation request) {
        return request.requestedSchema().get("properties") instanceof Map<?, ?> p ? p : Map.of();
    }

    private static Map<?, ?> property(Map<?, ?> properties, Object name) {
        return properties.get(name) instanceof Map<?, ?> p ? p : Map.of();
    }

    /** The question as the person reads it: the server's message, and what an answer looks like. */
    static String question(McpElicitation request) {
        Map<?, ?> properties = properties(request);
        String asked = "MCP server '" + request.server() + "' asks: " + request.message();
        if (properties.size() == 1) {
            Object name = properties.keySet().iterator().next();
            String hint = hint(property(properties, name));
            return hint.isEmpty() ? asked : asked + " (" + hint + ")";
        }
        if (properties.isEmpty()) {
            return asked;
        }
        List<?> required = request.requestedSchema().get("required") instanceof List<?> r ? r : List.of();
        StringBuilder text = new StringBuilder(asked).append("\nAnswer with a JSON object of:");
        properties.forEach((name, value) -> {
            Map<?, ?> p = value instanceof Map<?, ?> m ? m : Map.of();
            String hint = hint(p);
            text.append("\n  ").append(name).append(required.contains(name) ? " (required)" : "")
                    .append(p.get("description") instanceof String d && !d.isBlank() ? ": " + d : "")
                    .append(hint.isEmpty() ? "" : " [" + hint + "]");
        });
        return text.toString();
    }

    /** What a value of the property looks like: its options, its type, its default. */
    private static String hint(Map<?, ?> property) {
        List<String> parts = new ArrayList<>();
        Object type = property.get("type");
        Map<Object, String> options = options("array".equals(type) && property.get("items") instanceof Map<?, ?> items
                ? items : property);
        if (!options.isEmpty()) {
            parts.add(("array".equals(type) ? "any of, separated by commas: " : "one of: ") + String.join(", ", options.values()));
        } else if ("boolean".equals(type)) {
            parts.add("yes or no");
        } else if ("integer".equals(type)) {
            parts.add("a whole number");
        } else if ("number".equals(type)) {
            parts.add("a number");
        }
        if (property.containsKey("default")) {
            parts.add("default: " + shown(property.get("default"), options) + ", given by an empty answer");
        }
        return String.join("; ", parts);
    }

    private static String shown(Object value, Map<Object, String> options) {
        if (value instanceof List<?> list) {
            return String.join(", ", list.stream().map(v -> shown(v, options)).toList());
        }
        return options.getOrDefault(value, String.valueOf(value));
    }

    /** The enumerated values of a property, each as the person sees it (its title, when it has one). */
    private static Map<Object, String> options(Map<?, ?> property) {
        Map<Object, String> options = new LinkedHashMap<>();
        if (property.get("enum") instanceof List<?> values) {
            List<?> names = property.get("enumNames") instanceof List<?> n && n.size() == values.size() ? n : null;
            for (int i = 0; i < values.size(); i++) {
                options.put(values.get(i), names == null ? String.valueOf(values.get(i)) : names.get(i) + " (" + values.get(i) + ")");
            }
        }
        Object choices = property.get("oneOf") != null ? property.get("oneOf") : property.get("anyOf");
        if (choices instanceof List<?> list) {
            for (Object choice : list) {
                if (choice instanceof Map<?, ?> c && c.containsKey("const")) {
                    Object value = c.get("const");
                    options.put(value, c.get("title") instanceof String t && !t.equals(String.valueOf(value))
                            ? t + " (" + value + ")" : String.valueOf(value));
                }
            }
        }
        return options;
    }

    /**
     * The form's values from the person's reply.
     *
     * @throws IllegalArgumentException saying what is wrong when the reply cannot be read
     */
    static Map<String, Object> content(McpElicitation request, String reply) {
        String text = reply == null ? "" : reply.strip();
        Map<?, ?> properties = properties(request);
        if (text.startsWith("{")) {
            try {
                return JSON.readValue(text, FORM);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("it is not a JSON object");
            }
        }
        if (properties.size() != 1) {
            if (text.isEmpty()) {
                return Map.of();
            }
            throw new IllegalArgumentException("answer with a JSON object of " + String.join(", ",
                    properties.keySet().stream().map(String::valueOf).toList()));
        }
        String field = String.valueOf(properties.keySet().iterator().next());
        if (text.isEmpty()) {
            return Map.of();
        }
        Map<String, Object> content = new LinkedHashMap<>();
        content.put(field, value(property(properties, field), text));
        return content;
    }

    /** A typed value: an option (by value or title), a boolean, a number or a list; else the text, which the check refuses. */
    private static Object value(Map<?, ?> property, String text) {
        Object type = property.get("type");
        if ("array".equals(type)) {
            Map<?, ?> items = property.get("items") instanceof Map<?, ?> i ? i : Map.of();
            List<Object> values = new ArrayList<>();
            for (String item : text.split(",")) {
                if (!item.isBlank()) {
                    values.add(value(items, item.strip()));
                }
            }
            return values;
        }
        for (Map.Entry<Object, String> option : options(property).entrySet()) {
            String value = String.valueOf(option.getKey());
            if (value.equalsIgnoreCase(text) || option.getValue().equalsIgnoreCase(text)
                    || option.getValue().toLowerCase(Locale.ROOT).startsWith(text.toLowerCase(Locale.ROOT) + " (")) {
                return option.getKey();
            }
        }
        String word = text.toLowerCase(Locale.ROOT);
        return switch (type == null ? "string" : type.toString()) {
            case "boolean" -> switch (word) {
                case "yes", "y", "true" -> true;
                case "no", "n", "false" -> false;
                default -> text;
            };
            case "integer" -> parse(text, Long::valueOf);
            case "number" -> parse(text, Double::valueOf);
            default -> text;
        };
    }

    private static Object parse(String text, java.util.function.Function<String, Object> number) {
        try {
            return number.apply(text);
        } catch (NumberFormatException e) {
            return text;
        }
    }
}
