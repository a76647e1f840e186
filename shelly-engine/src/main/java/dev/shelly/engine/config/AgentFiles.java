package dev.shelly.engine.config;

import dev.shelly.engine.config.Locations.Place;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Agents written as markdown: {@code agents/NAME.md} beside {@code config.yaml}, YAML
 * frontmatter between two {@code ---} lines holding the agent's fields, and the body below it as
 * the agent's instructions.
 *
 * <pre>{@code
 * ---
 * description: Reviews a change for bugs and style
 * provider: claude
 * model: claude-haiku-4-5          # optional: this agent's own model on its provider
 * toolboxes: [files]
 * skills: [review]
 * delegate_targets: [writer]       # the only agents it delegates to
 * max_iterations: 15               # or under options:, as in config.yaml
 * approval: { ask: [fs_write*] }
 * ---
 * You review changes. Read the diff, then ...
 * }</pre>
 *
 * <p>The frontmatter's fields are those of an agent in {@code config.yaml}, read the same way
 * ({@code ${VAR}} included), with {@code max_iterations}, {@code max_delegation_depth} and
 * {@code max_tool_result_chars} also allowed at the top. The file's name is the agent's name: a
 * {@code name} field must say the same; {@code instructions} is refused, the body being them.
 * A file without frontmatter is an agent of instructions only. {@code README.md} is not an agent:
 * it may say what the folder is for.
 */
final class AgentFiles {
    /** The fields of an agent's {@code options:} that the frontmatter may also give at its top. */
    static final Set<String> OPTIONS = Set.of("max_iterations", "max_delegation_depth", "max_tool_result_chars");
    private static final String FENCE = "---";
    /** The one markdown file of an agents folder that is not an agent: what the folder is for. */
    private static final String README = "README.md";

    private AgentFiles() {}

    /**
     * One agent file, as an entry of {@code agents:}.
     *
     * @param name the agent's name: the file's name without {@code .md}
     * @param file the file
     * @param entry the agent's fields, its instructions included
     * @param places where each field is, by its path in {@code entry} ({@code ""} for the agent)
     */
    record AgentFile(String name, Path file, ObjectNode entry, Map<String, Place> places) {}

    /**
     * Reads every {@code *.md} file of a folder but {@code README.md}, by name.
     *
     * @param dir the folder; a missing one holds no agents
     * @throws ConfigException naming the file, the line and the field of the first problem
     */
    static List<AgentFile> read(Path dir, Function<String, String> env) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Path> files;
        try (Stream<Path> all = Files.list(dir)) {
            files = all.filter(p -> {
                String n = p.getFileName().toString();
                return n.endsWith(".md") && !n.startsWith(".") && n.length() > 3 && !n.equalsIgnoreCase(README)
                        && Files.isRegularFile(p);
            }).sorted().toList();
        } catch (IOException e) {
            throw new ConfigException(dir.toString(), 0, "", "cannot list the agents folder: " + e.getMessage());
        }
        List<AgentFile> agents = new ArrayList<>();
        for (Path file : files) {
            agents.add(read(file, ConfigLoader.read(file), env));
        }
        return agents;
    }

    /**
     * Reads one agent file's text.
     *
     * @throws ConfigException naming the file, the line and the field of the first problem
     */
    static AgentFile read(Path file, String text, Function<String, String> env) {
        String fileName = file.getFileName().toString();
        String name = fileName.substring(0, fileName.length() - ".md".length());
        String where = file.toString();
        List<String> lines = text.lines().toList();
        int close = -1;
        if (!lines.isEmpty() && lines.getFirst().replace("\uFEFF", "").strip().equals(FENCE)) {
            for (int i = 1; i < lines.size() && close < 0; i++) {
                if (lines.get(i).strip().equals(FENCE)) {
                    close = i;
                }
            }
            if (close < 0) {
                throw new ConfigException(where, 1, "", "the frontmatter begun on this line is not closed: end it with a "
                        + "line '---', then write the agent's instructions");
            }
        }
        ObjectNode entry = JsonNodeFactory.instance.objectNode();
        Map<String, Place> places = new HashMap<>();
        places.put("", new Place(where, 1, ""));
        if (close > 0) {
            // The fence's line stays as an empty line, so the parser's lines are the file's.
            String yaml = "\n" + String.join("\n", lines.subList(1, close));
            ConfigTree.Parsed parsed = ConfigTree.parse(yaml, where, env);
            if (parsed.root() != null && !parsed.root().isNull() && !parsed.root().isObject()) {
                throw new ConfigException(where, 2, "", "the frontmatter must be a mapping of the agent's fields "
                        + "(description, provider, toolboxes, ...), got " + ConfigBinder.describe(parsed.root()));
            }
            if (parsed.root() instanceof ObjectNode fields) {
                fill(entry, places, fields, parsed.locations(), name);
            }
        }
        entry.put("name", name);
        entry.put("instructions", String.join("\n", lines.subList(close + 1, lines.size())).strip());
        return new AgentFile(name, file, entry, places);
    }

    /** Moves the frontmatter's fields into the entry, the top-level options under {@code options}. */
    private static void fill(ObjectNode entry, Map<String, Place> places, ObjectNode fields, Locations at, String name) {
        for (Map.Entry<String, JsonNode> field : fields.properties()) {
            String key = field.getKey();
            JsonNode value = field.getValue();
            if (key.equals("name")) {
                if (!value.isString() || !value.stringValue().equals(name)) {
                    throw at.error("name", "is " + ConfigBinder.describe(value) + ", but the file names agent '" + name
                            + "'; an agent file is named after its agent: rename the file, or remove the field");
                }
                continue;
            }
            if (key.equals("instructions")) {
                throw at.error("instructions", "the body of the file, below the frontmatter, is the agent's "
                        + "instructions; remove this field");
            }
            String path = key;
            if (OPTIONS.contains(key)) {
                JsonNode options = fields.get("options");
                if (options != null && !options.isObject()) {
                    throw at.error("options", "expected a mapping of " + String.join(", ", new TreeSet<>(OPTIONS))
                            + ", got " + ConfigBinder.describe(options));
                }
                if (options != null && options.has(key)) {
                    throw at.error(key, "given both here and under options; keep one");
                }
                ObjectNode moved = entry.has("options") ? (ObjectNode) entry.get("options") : copyOptions(entry, options);
                moved.set(key, value);
                path = "options." + key;
            } else if (key.equals("options") && entry.has("options")) {
                ObjectNode moved = (ObjectNode) entry.get("options");
                value.properties().forEach(e -> moved.set(e.getKey(), e.getValue()));
            } else {
                entry.set(key, value);
            }
            String from = key;
            String to = path;
            at.places().forEach((p, place) -> {
                if (p.equals(from) || p.startsWith(from + ".") || p.startsWith(from + "[")) {
                    places.put(to + p.substring(from.length()), place);
                }
            });
        }
    }

    /** Starts the entry's {@code options} with what the frontmatter's own {@code options} gives. */
    private static ObjectNode copyOptions(ObjectNode entry, JsonNode options) {
        ObjectNode moved = JsonNodeFactory.instance.objectNode();
        if (options != null && options.isObject()) {
            options.properties().forEach(e -> moved.set(e.getKey(), e.getValue()));
        }
        entry.set("options", moved);
        return moved;
    }
}
