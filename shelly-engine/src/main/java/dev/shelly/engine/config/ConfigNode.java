package dev.shelly.engine.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * One node of a parsed YAML document with its location, reading typed values and reporting
 * every problem as a {@link ConfigException} naming file, line and field path.
 */
final class ConfigNode {
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");

    private final String file;
    private final String path;
    private final Node node;
    private final Function<String, String> env;
    private final Map<String, Integer> lines;

    ConfigNode(String file, String path, Node node, Function<String, String> env, Map<String, Integer> lines) {
        this.file = file;
        this.path = path;
        this.node = node;
        this.env = env;
        this.lines = lines;
        lines.putIfAbsent(path, line());
    }

    private ConfigNode child(String childPath, Node child) {
        return new ConfigNode(file, childPath, child, env, lines);
    }

    int line() {
        return node.getStartMark().map(m -> m.getLine() + 1).orElse(0);
    }

    String path() {
        return path;
    }

    ConfigException error(String problem) {
        return new ConfigException(file, line(), path, problem);
    }

    boolean isNull() {
        return node instanceof ScalarNode s && s.getTag().equals(Tag.NULL);
    }

    /**
     * The fields of a mapping; unknown and duplicate keys are errors.
     *
     * @param allowed the keys this mapping may have
     */
    Map<String, ConfigNode> mapping(Set<String> allowed) {
        if (!(node instanceof MappingNode mapping)) {
            throw error("expected a mapping of " + String.join(", ", new TreeSet<>(allowed)) + ", got " + describe());
        }
        Map<String, ConfigNode> fields = new LinkedHashMap<>();
        for (NodeTuple tuple : mapping.getValue()) {
            ConfigNode keyNode = child(path, tuple.getKeyNode());
            if (!(tuple.getKeyNode() instanceof ScalarNode key)) {
                throw keyNode.error("keys must be plain names, got " + keyNode.describe());
            }
            String name = key.getValue();
            String childPath = path.isEmpty() ? name : path + "." + name;
            if (!allowed.contains(name)) {
                throw child(childPath, tuple.getKeyNode())
                        .error("unknown field '" + name + "'; expected one of " + String.join(", ", new TreeSet<>(allowed)));
            }
            if (fields.containsKey(name)) {
                throw child(childPath, tuple.getKeyNode()).error("field '" + name + "' is given twice");
            }
            fields.put(name, child(childPath, tuple.getValueNode()));
        }
        return fields;
    }

    /** The entries of a mapping whose keys are free (environment, headers). */
    Map<String, String> stringMap() {
        if (isNull()) {
            return Map.of();
        }
        if (!(node instanceof MappingNode mapping)) {
            throw error("expected a mapping of names to values, got " + describe());
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (NodeTuple tuple : mapping.getValue()) {
            if (!(tuple.getKeyNode() instanceof ScalarNode key)) {
                throw child(path, tuple.getKeyNode()).error("keys must be plain names");
            }
            ConfigNode value = child(path + "." + key.getValue(), tuple.getValueNode());
            if (values.put(key.getValue(), value.string()) != null) {
                throw value.error("'" + key.getValue() + "' is given twice");
            }
        }
        return Collections.unmodifiableMap(values);
    }

    /** A mapping of free names (such as model ids) to nodes, in file order. */
    Map<String, ConfigNode> entries() {
        if (isNull()) {
            return Map.of();
        }
        if (!(node instanceof MappingNode mapping)) {
            throw error("expected a mapping of names to values, got " + describe());
        }
        Map<String, ConfigNode> entries = new LinkedHashMap<>();
        for (NodeTuple tuple : mapping.getValue()) {
            if (!(tuple.getKeyNode() instanceof ScalarNode key) || key.getValue().isBlank()) {
                throw child(path, tuple.getKeyNode()).error("keys must be plain names");
            }
            ConfigNode value = child(path + "." + key.getValue(), tuple.getValueNode());
            if (entries.put(key.getValue(), value) != null) {
                throw value.error("'" + key.getValue() + "' is given twice");
            }
        }
        return Collections.unmodifiableMap(entries);
    }

    List<ConfigNode> sequence() {
        if (isNull()) {
            return List.of();
        }
        if (!(node instanceof SequenceNode sequence)) {
            throw error("expected a list, got " + describe());
        }
        List<ConfigNode> items = new ArrayList<>();
        List<Node> values = sequence.getValue();
        for (int i = 0; i < values.size(); i++) {
            items.add(child(path + "[" + i + "]", values.get(i)));
        }
        return items;
    }

    List<String> stringList() {
        List<String> values = new ArrayList<>();
        for (ConfigNode item : sequence()) {
            values.add(item.string());
        }
        return List.copyOf(values);
    }

    boolean isScalar() {
        return node instanceof ScalarNode;
    }

    /** A scalar as text, with environment variables interpolated. */
    String string() {
        if (!(node instanceof ScalarNode scalar) || isNull()) {
            throw error("expected a text value, got " + describe());
        }
        try {
            return Interpolation.apply(scalar.getValue(), env);
        } catch (Interpolation.Failure e) {
            throw error(e.getMessage());
        }
    }

    /** A scalar true or false. */
    boolean bool() {
        String value = string().strip();
        if (value.equals("true")) {
            return true;
        }
        if (value.equals("false")) {
            return false;
        }
        throw error("expected true or false, got '" + value + "'");
    }

    String nonBlank() {
        String value = string();
        if (value.isBlank()) {
            throw error("must not be blank");
        }
        return value;
    }

    /** An absolute http or https URL. */
    String url() {
        String value = nonBlank().strip();
        try {
            java.net.URI uri = new java.net.URI(value);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
                throw error("expected an http or https URL, got '" + value + "'");
            }
        } catch (java.net.URISyntaxException e) {
            throw error("expected an http or https URL, got '" + value + "' (" + e.getReason() + ")");
        }
        return value;
    }

    int positiveInt() {
        String text = string().strip();
        try {
            int value = Integer.parseInt(text);
            if (value <= 0) {
                throw error("expected a positive whole number, got " + value);
            }
            return value;
        } catch (NumberFormatException e) {
            throw error("expected a positive whole number, got '" + text + "'");
        }
    }

    int nonNegativeInt() {
        String text = string().strip();
        try {
            int value = Integer.parseInt(text);
            if (value < 0) {
                throw error("expected a whole number of 0 or more, got " + value);
            }
            return value;
        } catch (NumberFormatException e) {
            throw error("expected a whole number of 0 or more, got '" + text + "'");
        }
    }

    double number(double min, double max) {
        String text = string().strip();
        try {
            double value = Double.parseDouble(text);
            if (!(value >= min && value <= max)) {
                throw error("expected a number from " + min + " to " + max + ", got " + text);
            }
            return value;
        } catch (NumberFormatException e) {
            throw error("expected a number from " + min + " to " + max + ", got '" + text + "'");
        }
    }

    /** A price in dollars per million tokens: a decimal number of zero or more. */
    BigDecimal price() {
        String text = string().strip();
        try {
            BigDecimal value = new BigDecimal(text);
            if (value.signum() >= 0) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw error("must be a number of zero or more, got '" + text + "'");
    }

    /** A duration: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, ISO-8601, or whole seconds. */
    Duration duration() {
        String text = string().strip().toLowerCase(Locale.ROOT);
        Matcher m = DURATION.matcher(text);
        Duration value;
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            value = switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        } else if (text.matches("\\d+")) {
            value = Duration.ofSeconds(Long.parseLong(text));
        } else {
            try {
                value = Duration.parse(text.toUpperCase(Locale.ROOT));
            } catch (DateTimeParseException e) {
                throw error("expected a duration such as 500ms, 30s, 2m or 1h, got '" + string().strip() + "'");
            }
        }
        if (value.isNegative() || value.isZero()) {
            throw error("expected a positive duration, got '" + string().strip() + "'");
        }
        return value;
    }

    private String describe() {
        if (node instanceof MappingNode) {
            return "a mapping";
        }
        if (node instanceof SequenceNode) {
            return "a list";
        }
        if (isNull()) {
            return "nothing";
        }
        return "'" + ((ScalarNode) node).getValue() + "'";
    }

    static Optional<ConfigNode> present(Map<String, ConfigNode> fields, String key) {
        ConfigNode value = fields.get(key);
        return value == null || value.isNull() ? Optional.empty() : Optional.of(value);
    }

    static ConfigNode required(ConfigNode parent, Map<String, ConfigNode> fields, String key) {
        ConfigNode value = fields.get(key);
        if (value == null || value.isNull()) {
            throw parent.error("missing required field '" + key + "'");
        }
        return value;
    }
}
