package dev.shelly.state;

import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** Copies and checks the JSON trees the store holds, and writes them as text. */
final class JsonValues {
    static final JsonMapper JSON = JsonMapper.builder().build();

    private JsonValues() {}

    /**
     * A copy that shares no mutable node with the original: objects and arrays are copied,
     * strings, numbers, booleans and nulls (immutable in Jackson) are shared.
     *
     * @param where names the value in an error message, e.g. "value for key 'findings'"
     * @throws IllegalArgumentException when the tree holds something that is not plain JSON
     */
    static JsonNode copy(JsonNode node, String where) {
        return copy(node, where, "");
    }

    private static JsonNode copy(JsonNode node, String where, String path) {
        switch (node.getNodeType()) {
            case OBJECT -> {
                ObjectNode copy = JsonNodeFactory.instance.objectNode();
                for (Map.Entry<String, JsonNode> e : node.properties()) {
                    copy.set(e.getKey(), copy(e.getValue(), where, path + "/" + pointerToken(e.getKey())));
                }
                return copy;
            }
            case ARRAY -> {
                ArrayNode copy = JsonNodeFactory.instance.arrayNode(node.size());
                for (int i = 0; i < node.size(); i++) {
                    copy.add(copy(node.get(i), where, path + "/" + i));
                }
                return copy;
            }
            case STRING, NUMBER, BOOLEAN, NULL -> {
                return node;
            }
            default -> throw new IllegalArgumentException(where + " holds a "
                    + node.getNodeType().name().toLowerCase(java.util.Locale.ROOT) + " node"
                    + (path.isEmpty() ? "" : " at " + path)
                    + "; only JSON values (object, array, string, number, boolean, null) can be stored");
        }
    }

    private static String pointerToken(String name) {
        return name.replace("~", "~0").replace("/", "~1");
    }

    /** The tree as compact JSON text. */
    static String write(JsonNode node) {
        return JSON.writeValueAsString(node);
    }
}
