package dev.shelly.engine.config;

import java.io.StringReader;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.snakeyaml.engine.v2.api.LoadSettings;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.JacksonYAMLParseException;
import tools.jackson.dataformat.yaml.YAMLFactory;
import tools.jackson.dataformat.yaml.YAMLParser;

/**
 * One streaming pass over a configuration's YAML: the document as a tree with every text value's
 * {@code ${VAR}} replaced, and the line of every field and list item, so that an error found
 * later (while binding, checking references, or building a provider) names the line of the
 * field at fault.
 *
 * <p>The pass refuses what binding could not see: a key given twice, an alias (Jackson's YAML
 * parser would hand over the alias's name as if it were the value) and collections nested deeper
 * than {@link ConfigLoader#MAX_DEPTH}.
 */
final class ConfigTree {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final String file;
    private final Function<String, String> env;
    private final Map<String, Integer> lines = new HashMap<>();
    private JsonParser parser;

    private ConfigTree(String file, Function<String, String> env) {
        this.file = file;
        this.env = env;
    }

    /** The parsed document: its root (null when the document is empty) and its field lines. */
    record Parsed(JsonNode root, Locations locations) {}

    /**
     * Parses the text.
     *
     * @throws ConfigException naming the line of any syntax error, duplicate key, alias, failed
     *     interpolation or too deep nesting
     */
    static Parsed parse(String yaml, String file, Function<String, String> env) {
        return new ConfigTree(file, env).read(yaml);
    }

    private Parsed read(String yaml) {
        // One buffer for the whole text: with the default small buffer, a long scalar is copied
        // again for every chunk read, which takes time quadratic in its length. The nesting limit
        // is one above ours so that ours, with its clearer message, is met first; it stays as the
        // parser's own guard.
        YAMLFactory factory = YAMLFactory.builder()
                .loadSettings(LoadSettings.builder().setLabel(file).setBufferSize(yaml.length() + 1)
                        .setCodePointLimit(ConfigLoader.MAX_BYTES + 1).build())
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(ConfigLoader.MAX_DEPTH + 1)
                        .maxDocumentLength(ConfigLoader.MAX_BYTES + 1L).build())
                // Keys given twice are reported by this pass, with the path of the field.
                .disable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .build();
        try (JsonParser p = factory.createParser(tools.jackson.core.ObjectReadContext.empty(), new StringReader(yaml))) {
            parser = p;
            JsonToken first = p.nextToken();
            if (first == null) {
                return new Parsed(null, Locations.of(file, lines));
            }
            JsonNode root = value(first, "", 0);
            if (p.nextToken() != null) {
                // The parser reads a stream of documents as a sequence of roots: a second one
                // would otherwise be ignored without a word.
                throw new ConfigException(file, line(), "", "a second YAML document begins here; a configuration is "
                        + "one document: merge the two, or remove the '---' between them");
            }
            return new Parsed(root, Locations.of(file, lines));
        } catch (JacksonYAMLParseException e) {
            throw new ConfigException(file, lineOf(e), "", "not valid YAML: " + yamlProblem(e));
        } catch (JacksonException e) {
            throw new ConfigException(file, lineOf(e), "", "not valid YAML: " + e.getOriginalMessage());
        }
    }

    private JsonNode value(JsonToken token, String path, int depth) {
        if (!path.isEmpty()) {
            lines.putIfAbsent(path, line());
        }
        if (parser instanceof YAMLParser yaml && yaml.isCurrentAlias()) {
            throw error(path, "aliases such as *" + parser.getString() + " are not supported in a configuration; "
                    + "repeat the value instead");
        }
        return switch (token) {
            case START_OBJECT -> object(path, depth + 1);
            case START_ARRAY -> array(path, depth + 1);
            case VALUE_STRING -> NODES.stringNode(interpolate(path, parser.getString()));
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> number();
            case VALUE_TRUE -> NODES.booleanNode(true);
            case VALUE_FALSE -> NODES.booleanNode(false);
            case VALUE_NULL -> NODES.nullNode();
            default -> throw error(path, "unexpected " + token);
        };
    }

    private JsonNode number() {
        return switch (parser.getNumberType()) {
            case INT -> NODES.numberNode(parser.getIntValue());
            case LONG -> NODES.numberNode(parser.getLongValue());
            case BIG_INTEGER -> NODES.numberNode(parser.getBigIntegerValue());
            default -> NODES.numberNode(parser.getDecimalValue());
        };
    }

    private ObjectNode object(String path, int depth) {
        checkDepth(path, depth);
        ObjectNode node = NODES.objectNode();
        JsonToken t;
        while ((t = parser.nextToken()) == JsonToken.PROPERTY_NAME) {
            String name = parser.currentName();
            String child = path.isEmpty() ? name : path + "." + name;
            if (node.has(name)) {
                throw new ConfigException(file, line(), child, "field '" + name + "' is given twice");
            }
            node.set(name, value(parser.nextToken(), child, depth));
        }
        return node;
    }

    private ArrayNode array(String path, int depth) {
        checkDepth(path, depth);
        ArrayNode node = NODES.arrayNode();
        JsonToken t;
        while ((t = parser.nextToken()) != JsonToken.END_ARRAY) {
            node.add(value(t, path + "[" + node.size() + "]", depth));
        }
        return node;
    }

    private void checkDepth(String path, int depth) {
        if (depth > ConfigLoader.MAX_DEPTH) {
            throw new ConfigException(file, line(), "", "collections are nested more than " + ConfigLoader.MAX_DEPTH
                    + " levels deep; at most " + ConfigLoader.MAX_DEPTH + " are allowed");
        }
    }

    private String interpolate(String path, String text) {
        try {
            return Interpolation.apply(text, env);
        } catch (Interpolation.Failure e) {
            throw error(path, e.getMessage());
        }
    }

    private ConfigException error(String path, String problem) {
        return new ConfigException(file, line(), path, problem);
    }

    private int line() {
        return parser.currentTokenLocation().getLineNr();
    }

    private int lineOf(JacksonException e) {
        if (e.getLocation() != null && e.getLocation().getLineNr() > 0) {
            return e.getLocation().getLineNr();
        }
        return parser == null ? 0 : Math.max(parser.currentLocation().getLineNr(), 0);
    }

    /** SnakeYAML's own words for the problem, without its excerpt of the text and caret. */
    private static String yamlProblem(JacksonYAMLParseException e) {
        String message = e.getOriginalMessage();
        int cut = message.indexOf('\n');
        return cut < 0 ? message : message.substring(0, cut);
    }
}
