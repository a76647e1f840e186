package dev.shelly.mcp;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Checks an accepted elicitation answer against its requested schema, which MCP restricts to an
 * object of primitive properties: strings (with {@code enum} or titled {@code oneOf}), numbers,
 * integers, booleans, and arrays of enumerated strings.
 */
final class ElicitationCheck {
    private ElicitationCheck() {}

    /** What is wrong with the content, or null when it fits. */
    static String problem(Map<String, Object> schema, Map<String, Object> content) {
        Map<?, ?> properties = schema.get("properties") instanceof Map<?, ?> p ? p : Map.of();
        List<String> problems = new ArrayList<>();
        if (schema.get("required") instanceof List<?> required) {
            for (Object name : required) {
                if (!content.containsKey(String.valueOf(name))) {
                    problems.add(name + " is required");
                }
            }
        }
        for (Map.Entry<String, Object> entry : content.entrySet()) {
            if (!(properties.get(entry.getKey()) instanceof Map<?, ?> property)) {
                problems.add(entry.getKey() + " is not asked for");
                continue;
            }
            String wrong = value(property, entry.getValue());
            if (wrong != null) {
                problems.add(entry.getKey() + " " + wrong);
            }
        }
        return problems.isEmpty() ? null : String.join("; ", problems);
    }

    private static String value(Map<?, ?> property, Object value) {
        Object type = property.get("type");
        if ("array".equals(type)) {
            if (!(value instanceof List<?> items)) {
                return "must be a list";
            }
            Map<?, ?> itemSchema = property.get("items") instanceof Map<?, ?> i ? i : Map.of();
            for (Object item : items) {
                String wrong = value(itemSchema, item);
                if (wrong != null) {
                    return "has an item that " + wrong;
                }
            }
            return null;
        }
        boolean fits = switch (type == null ? "" : type.toString()) {
            case "string" -> value instanceof String;
            case "boolean" -> value instanceof Boolean;
            case "integer" -> value instanceof Integer || value instanceof Long
                    || value instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue());
            case "number" -> value instanceof Number;
            default -> true;
        };
        if (!fits) {
            return "must be " + (type.toString().matches("[aeiou].*") ? "an " : "a ") + type + ", was " + value;
        }
        List<Object> allowed = allowed(property);
        if (allowed != null && !allowed.contains(value)) {
            return "must be one of " + allowed + ", was " + value;
        }
        return null;
    }

    /** The enumerated values, from {@code enum} or from the {@code const}s of {@code oneOf}/{@code anyOf}. */
    private static List<Object> allowed(Map<?, ?> property) {
        if (property.get("enum") instanceof List<?> values) {
            return new ArrayList<>(values);
        }
        Object options = property.get("oneOf") != null ? property.get("oneOf") : property.get("anyOf");
        if (options instanceof List<?> list) {
            List<Object> values = new ArrayList<>();
            for (Object option : list) {
                if (option instanceof Map<?, ?> o && o.containsKey("const")) {
                    values.add(o.get("const"));
                }
            }
            return values.isEmpty() ? null : values;
        }
        return null;
    }
}
