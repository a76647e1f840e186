package dev.shelly.state;

import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolHandler;
import dev.shelly.tools.ToolOutput;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;

/** Builds the tools through which agents read and write a {@link Store}. */
final class StateTools {
    /** 53 = 64, the longest tool name providers accept, minus the 11 characters of "_state_list". */
    private static final Pattern NAMESPACE = Pattern.compile("[a-zA-Z0-9_-]{1,53}");
    private static final int KEYS_IN_ERRORS = 20;

    private StateTools() {}

    static ToolBox toolBox(Store store, String ns) {
        if (ns == null) {
            throw new IllegalArgumentException("state tool namespace must not be null");
        }
        if (!NAMESPACE.matcher(ns).matches()) {
            throw new IllegalArgumentException("state tool namespace '" + ns + "' is invalid: use 1 to 53 letters, "
                    + "digits, '_' or '-', so that '" + ns + "_state_list' is a valid tool name");
        }
        return ToolBox.of(get(store, ns), set(store, ns), list(store, ns));
    }

    private static Tool get(Store store, String ns) {
        return Tool.of(ns + "_state_get",
                "Read one value from the shared \"" + ns + "\" state, a key/value store that cooperating agents use to "
                        + "hand each other structured data. Returns the value as JSON. Fails when nothing is stored "
                        + "under the key; " + ns + "_state_list shows the keys that exist.",
                """
                {"type":"object","properties":{"key":{"type":"string","description":"The key to read, e.g. \\"findings\\"."}},\
                "required":["key"],"additionalProperties":false}""",
                handler((input) -> {
                    String key = key(input);
                    Optional<JsonNode> value = store.get(key);
                    if (value.isEmpty()) {
                        return ToolOutput.error("no value under key '" + key + "' in the \"" + ns + "\" state; "
                                + present(store.keys()));
                    }
                    return ToolOutput.text(JsonValues.write(value.get()));
                }));
    }

    private static Tool set(Store store, String ns) {
        return Tool.of(ns + "_state_set",
                "Store a JSON value under a key in the shared \"" + ns + "\" state, where other agents can read it with "
                        + ns + "_state_get. Replaces any value already under that key. Returns ok.",
                """
                {"type":"object","properties":{"key":{"type":"string","description":"The key to write, e.g. \\"findings\\"."},\
                "value":{"description":"The value: any JSON (object, array, string, number, boolean or null)."}},\
                "required":["key","value"],"additionalProperties":false}""",
                handler((input) -> {
                    String key = key(input);
                    if (!input.has("value")) {
                        return ToolOutput.error("missing required field 'value': the JSON value to store under '" + key
                                + "' (use null to store null)");
                    }
                    store.set(key, input.get("value"));
                    return ToolOutput.text("ok");
                }));
    }

    private static Tool list(Store store, String ns) {
        return Tool.of(ns + "_state_list",
                "List the keys of the shared \"" + ns + "\" state, sorted, as a JSON array of strings.",
                """
                {"type":"object","properties":{},"additionalProperties":false}""",
                handler((input) -> {
                    ArrayNode keys = JsonNodeFactory.instance.arrayNode();
                    store.keys().forEach(keys::add);
                    return ToolOutput.text(JsonValues.write(keys));
                }));
    }

    private static String key(JsonNode input) {
        JsonNode key = input.get("key");
        if (key == null) {
            throw new IllegalArgumentException("missing required field 'key': a non-empty string");
        }
        if (!key.isString()) {
            throw new IllegalArgumentException("field 'key' must be a string, got "
                    + key.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
        }
        if (key.stringValue().isBlank()) {
            throw new IllegalArgumentException("field 'key' must not be blank");
        }
        return key.stringValue();
    }

    private static String present(List<String> keys) {
        if (keys.isEmpty()) {
            return "the state is empty";
        }
        if (keys.size() <= KEYS_IN_ERRORS) {
            return "keys present: " + String.join(", ", keys);
        }
        return "keys present: " + String.join(", ", keys.subList(0, KEYS_IN_ERRORS)) + " and "
                + (keys.size() - KEYS_IN_ERRORS) + " more";
    }

    /** The store's checks throw IllegalArgumentException; the model gets its message as an error result. */
    private static ToolHandler handler(InputHandler body) {
        return (input, context) -> {
            try {
                return body.call(input);
            } catch (IllegalArgumentException e) {
                return ToolOutput.error(e.getMessage());
            }
        };
    }

    @FunctionalInterface
    private interface InputHandler {
        ToolOutput call(JsonNode input);
    }
}
