package dev.shelly.engine.config;

import dev.shelly.engine.config.Locations.Place;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * One level of settings as a tree (a user's folder, a project's folder, the environment), with
 * the place every field came from, and how a higher level is laid over a lower one.
 *
 * <p>The merge, field by field of the top level:
 * <ul>
 *   <li>{@code providers}, {@code mcp_servers} and {@code agents} are merged by {@code name}: an
 *       entry of the higher level replaces the lower level's entry of the same name whole (its
 *       fields are not mixed), and the lower level's other entries follow the higher level's;
 *   <li>{@code prices} and {@code context_windows} are merged by model id, the higher level's
 *       entry winning;
 *   <li>every other field ({@code entry_agent}, {@code approvals}, {@code redis},
 *       {@code telemetry}) is taken whole from the highest level that gives it.
 * </ul>
 * The higher level's entries keep their index, so a project's fields keep the paths its file
 * spells; each field of the lower level keeps the file, line and path it came from.
 *
 * @param root the settings
 * @param places where each field came from, by its path in {@code root}; may be added to
 */
record Layer(ObjectNode root, Map<String, Place> places) {
    /** The lists whose entries are merged by name. */
    static final Set<String> NAMED_LISTS = Set.of("providers", "mcp_servers", "agents");
    /** The mappings whose entries are merged by key. */
    static final Set<String> KEYED_MAPS = Set.of("prices", "context_windows");

    /** A level that gives nothing. */
    static Layer empty() {
        return new Layer(JsonNodeFactory.instance.objectNode(), new HashMap<>());
    }

    /** Whether the level gives any field. */
    boolean isEmpty() {
        return root.isEmpty();
    }

    /**
     * This level laid over a lower one.
     *
     * @param lower the level this one wins over
     * @return the merged level
     */
    Layer over(Layer lower) {
        ObjectNode merged = JsonNodeFactory.instance.objectNode();
        Map<String, Place> at = new HashMap<>();
        for (String field : fields(root, lower.root)) {
            JsonNode high = root.get(field);
            JsonNode low = lower.root.get(field);
            if (high == null) {
                merged.set(field, low);
                copy(lower.places, field, field, at);
            } else if (low != null && NAMED_LISTS.contains(field) && high.isArray() && low.isArray()) {
                merged.set(field, byName(field, (ArrayNode) high, (ArrayNode) low, lower, at));
            } else if (low != null && KEYED_MAPS.contains(field) && high.isObject() && low.isObject()) {
                ObjectNode both = JsonNodeFactory.instance.objectNode();
                for (String key : fields((ObjectNode) high, (ObjectNode) low)) {
                    boolean mine = high.has(key);
                    both.set(key, mine ? high.get(key) : low.get(key));
                    copy(mine ? places : lower.places, field + "." + key, field + "." + key, at);
                }
                copyOwn(places, field, at);
                merged.set(field, both);
            } else {
                merged.set(field, high);
                copy(places, field, field, at);
            }
        }
        return new Layer(merged, at);
    }

    /** The higher level's entries, then the lower level's entries of other names. */
    private ArrayNode byName(String field, ArrayNode high, ArrayNode low, Layer lower, Map<String, Place> at) {
        ArrayNode list = JsonNodeFactory.instance.arrayNode();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < high.size(); i++) {
            list.add(high.get(i));
            names.add(nameOf(high.get(i)));
        }
        copy(places, field, field, at);
        for (int i = 0; i < low.size(); i++) {
            String name = nameOf(low.get(i));
            if (name == null || !names.contains(name)) {
                copy(lower.places, field + "[" + i + "]", field + "[" + list.size() + "]", at);
                list.add(low.get(i));
            }
        }
        return list;
    }

    /** An entry's name, or null when it has no text name. */
    static String nameOf(JsonNode entry) {
        JsonNode name = entry == null ? null : entry.get("name");
        return name != null && name.isString() ? name.stringValue() : null;
    }

    /** The fields of two mappings, the first's in order, then the second's others. */
    private static Set<String> fields(ObjectNode first, ObjectNode second) {
        Set<String> all = new LinkedHashSet<>(first.propertyNames());
        all.addAll(second.propertyNames());
        return all;
    }

    /**
     * Copies the places of a field and everything under it, moved from one path to another;
     * {@code ""} as {@code path} stands for a whole mapping, whose fields then go under {@code to}.
     */
    static void copy(Map<String, Place> from, String path, String to, Map<String, Place> into) {
        from.forEach((p, place) -> {
            if (path.isEmpty()) {
                into.put(p.isEmpty() ? to : to + "." + p, place);
            } else if (p.equals(path) || p.startsWith(path + ".") || p.startsWith(path + "[")) {
                into.put(to + p.substring(path.length()), place);
            }
        });
    }

    /** Copies the place of the field itself, not of what is under it. */
    private static void copyOwn(Map<String, Place> from, String path, Map<String, Place> into) {
        Place own = from.get(path);
        if (own != null) {
            into.put(path, own);
        }
    }
}
