package dev.shelly.skills;

import dev.shelly.skills.internal.DepthLimitedParser;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.composer.Composer;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.parser.ParserImpl;
import org.snakeyaml.engine.v2.scanner.StreamReader;
import org.snakeyaml.engine.v2.schema.CoreSchema;

/**
 * Reads {@code SKILL.md} files: splits off the frontmatter, parses it as YAML and checks the
 * standard fields.
 *
 * <p>The frontmatter is read as a node tree, not bound to Java types, so every scalar keeps the
 * text it was written with ({@code version: 1.10} stays {@code "1.10"}).
 *
 * <p>A {@code SKILL.md} over {@value #MAX_BYTES} bytes (1 MiB) is refused before it is read, and
 * frontmatter whose collections nest more than {@value #MAX_DEPTH} levels deep is refused while
 * parsing, so a broken or hostile file fails fast with a {@link SkillException}.
 */
final class SkillFile {
    static final String FILE_NAME = "SKILL.md";
    /** The largest {@code SKILL.md} read: 1 MiB. */
    static final int MAX_BYTES = 1024 * 1024;
    /** How deeply collections may nest in frontmatter. */
    static final int MAX_DEPTH = 50;
    private static final String FENCE = "---";

    private SkillFile() {}

    static Skill load(Path folder) {
        if (folder == null) {
            throw new IllegalArgumentException("Skill.load folder must not be null");
        }
        Path dir = folder.toAbsolutePath().normalize();
        if (!Files.isDirectory(dir)) {
            throw new SkillException(dir, "skill folder " + dir
                    + (Files.exists(dir) ? " is not a directory" : " does not exist"), null);
        }
        Path file = dir.resolve(FILE_NAME);
        if (!Files.isRegularFile(file)) {
            throw new SkillException(file, "skill folder " + dir + " has no " + FILE_NAME, null);
        }
        Path fileName = dir.getFileName();
        if (fileName == null) {
            throw new SkillException(dir, "skill folder " + dir + " has no name to give the skill", null);
        }
        return parse(fileName.toString(), dir, file, read(file));
    }

    static List<Skill> loadDir(Path dir) {
        if (dir == null) {
            throw new IllegalArgumentException("Skill.loadDir dir must not be null");
        }
        Path root = dir.toAbsolutePath().normalize();
        if (!Files.isDirectory(root)) {
            throw new SkillException(root, "skills directory " + root
                    + (Files.exists(root) ? " is not a directory" : " does not exist"), null);
        }
        List<Path> folders;
        try (Stream<Path> entries = Files.list(root)) {
            folders = entries.filter(p -> Files.isDirectory(p) && Files.isRegularFile(p.resolve(FILE_NAME)))
                    .sorted((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()))
                    .toList();
        } catch (IOException e) {
            throw new SkillException(root, "cannot list skills directory " + root + ": " + e.getMessage(), e);
        }
        List<Skill> skills = new ArrayList<>(folders.size());
        List<SkillException> failures = new ArrayList<>();
        for (Path folder : folders) {
            try {
                skills.add(load(folder));
            } catch (SkillException e) {
                failures.add(e);
            }
        }
        if (failures.size() == 1) {
            throw failures.getFirst();
        }
        if (!failures.isEmpty()) {
            StringBuilder sb = new StringBuilder()
                    .append(failures.size()).append(" of the ").append(folders.size())
                    .append(" skills in ").append(root).append(" cannot be loaded:");
            for (SkillException f : failures) {
                sb.append("\n- ").append(f.getMessage());
            }
            SkillException all = new SkillException(root, sb.toString(), null);
            failures.forEach(all::addSuppressed);
            throw all;
        }
        return Collections.unmodifiableList(skills);
    }

    private static String read(Path file) {
        try {
            long size = Files.size(file);
            if (size > MAX_BYTES) {
                throw new SkillException(file, "invalid " + file + ": the file is too large (" + size
                        + " bytes); a " + FILE_NAME + " may be at most " + MAX_BYTES + " bytes (1 MiB)", null);
            }
            byte[] bytes = Files.readAllBytes(file);
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new SkillException(file, "invalid " + file + ": the file is not valid UTF-8", e);
        } catch (IOException e) {
            throw new SkillException(file, "cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Parses the text of a {@code SKILL.md}.
     *
     * @param name the folder's name
     * @param dir the folder's absolute path, or null
     * @param file the file, for messages
     * @param raw the file's text
     */
    static Skill parse(String name, Path dir, Path file, String raw) {
        String text = raw.replace("\r\n", "\n");
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1);
        }
        List<String> lines = List.of(text.split("\n", -1));
        if (lines.isEmpty() || !lines.getFirst().stripTrailing().equals(FENCE)) {
            return new Skill(name, "", body(lines, 0), dir, null, null, List.of(), Map.of(), Map.of());
        }
        int close = -1;
        for (int i = 1; i < lines.size(); i++) {
            if (lines.get(i).stripTrailing().equals(FENCE)) {
                close = i;
                break;
            }
        }
        if (close < 0) {
            throw invalid(file, "the frontmatter opened by '---' on line 1 is never closed; end it with a line holding only '---'");
        }
        String yaml = String.join("\n", lines.subList(1, close));
        Node root = compose(file, yaml);
        Fields fields = new Fields(file);
        if (root != null) {
            if (!(root instanceof MappingNode mapping)) {
                throw invalid(file, "the frontmatter must be a YAML mapping of fields (name: value), not "
                        + describe(root));
            }
            fields.read(mapping);
        }
        String declared = fields.text("name");
        if (declared != null && !declared.equals(name)) {
            throw invalid(file, "the frontmatter names the skill '" + declared + "' but its folder is named '" + name
                    + "'; the Agent Skills standard requires them to be equal, so rename one of them");
        }
        String description = fields.text("description");
        return new Skill(name, description == null ? "" : description.strip(), body(lines, close + 1), dir,
                fields.text("license"), fields.text("compatibility"), fields.words("allowed-tools"),
                fields.textMap("metadata"), fields.raw());
    }

    private static String body(List<String> lines, int from) {
        int start = from;
        while (start < lines.size() && lines.get(start).isBlank()) {
            start++;
        }
        return String.join("\n", lines.subList(start, lines.size())).stripTrailing();
    }

    private static Node compose(Path file, String yaml) {
        LoadSettings settings = LoadSettings.builder()
                .setSchema(new CoreSchema())
                .setLabel(file.toString())
                .setMaxAliasesForCollections(20)
                // One buffer for the whole text: with the default small one, a long scalar is
                // copied again for every chunk read, which takes time quadratic in its length.
                .setBufferSize(yaml.length() + 1)
                .setCodePointLimit(MAX_BYTES + 1)
                .build();
        try {
            // Composer, ParserImpl and StreamReader are what Compose uses inside; unlike Compose's
            // package they are exported by the org.snakeyaml.engine module, so this works on the
            // module path too.
            ParserImpl parser = new ParserImpl(settings, new StreamReader(settings, new StringReader(yaml)));
            return new Composer(settings, new DepthLimitedParser(parser, MAX_DEPTH)).getSingleNode().orElse(null);
        } catch (DepthLimitedParser.TooDeep e) {
            String where = e.line() > 0 ? "frontmatter line " + (e.line() + 1) + ": " : "frontmatter: ";
            throw invalid(file, where + e.getMessage() + "; at most " + MAX_DEPTH + " are allowed");
        } catch (MarkedYamlEngineException e) {
            String where = e.getProblemMark()
                    .map(m -> "frontmatter line " + (m.getLine() + 2) + ", column " + (m.getColumn() + 1) + ": ")
                    .orElse("frontmatter: ");
            String context = e.getContext() == null || e.getContext().isBlank() ? "" : " (" + e.getContext() + ")";
            throw invalid(file, where + e.getProblem() + context, e);
        } catch (YamlEngineException e) {
            throw invalid(file, "frontmatter: " + e.getMessage(), e);
        }
    }

    private static SkillException invalid(Path file, String reason) {
        return invalid(file, reason, null);
    }

    private static SkillException invalid(Path file, String reason, Throwable cause) {
        return new SkillException(file, "invalid " + file + ": " + reason, cause);
    }

    private static String describe(Node node) {
        return switch (node) {
            case SequenceNode s -> "a list";
            case MappingNode m -> "a mapping";
            case ScalarNode s when s.getTag().equals(Tag.NULL) -> "an empty value";
            default -> "text";
        };
    }

    /** The frontmatter's top-level fields, checked one by one. */
    private static final class Fields {
        private final Path file;
        private final Map<String, Node> nodes = new LinkedHashMap<>();

        Fields(Path file) {
            this.file = file;
        }

        void read(MappingNode mapping) {
            for (NodeTuple tuple : mapping.getValue()) {
                String key = key(tuple.getKeyNode(), "the frontmatter");
                if (nodes.put(key, tuple.getValueNode()) != null) {
                    throw invalid(file, "the frontmatter has the field '" + key + "' twice");
                }
            }
        }

        private String key(Node node, String where) {
            if (node instanceof ScalarNode s) {
                return s.getValue();
            }
            throw invalid(file, where + " has a key that is " + describe(node) + "; keys must be plain names");
        }

        /** A text field, or null when absent or empty. */
        String text(String field) {
            Node node = nodes.get(field);
            if (node == null || isNull(node)) {
                return null;
            }
            if (node instanceof ScalarNode s) {
                return s.getValue();
            }
            throw invalid(file, "the frontmatter field '" + field + "' must be text, not " + describe(node));
        }

        /** A list of words: space-separated text (the standard's form) or a YAML list of text. */
        List<String> words(String field) {
            Node node = nodes.get(field);
            if (node == null || isNull(node)) {
                return List.of();
            }
            List<String> words = new ArrayList<>();
            if (node instanceof ScalarNode s) {
                for (String w : s.getValue().strip().split("\\s+")) {
                    if (!w.isEmpty()) {
                        words.add(w);
                    }
                }
                return words;
            }
            if (node instanceof SequenceNode seq) {
                for (int i = 0; i < seq.getValue().size(); i++) {
                    Node item = seq.getValue().get(i);
                    if (!(item instanceof ScalarNode s) || isNull(item) || s.getValue().isBlank()) {
                        throw invalid(file, "the frontmatter field '" + field + "' item " + (i + 1)
                                + " must be a tool name, not " + describe(item));
                    }
                    words.add(s.getValue().strip());
                }
                return words;
            }
            throw invalid(file, "the frontmatter field '" + field
                    + "' must be space-separated tool names or a list of them, not " + describe(node));
        }

        /** A mapping of text to text. */
        Map<String, String> textMap(String field) {
            Node node = nodes.get(field);
            if (node == null || isNull(node)) {
                return Map.of();
            }
            if (!(node instanceof MappingNode mapping)) {
                throw invalid(file, "the frontmatter field '" + field + "' must be a mapping of names to text, not "
                        + describe(node));
            }
            Map<String, String> map = new LinkedHashMap<>();
            for (NodeTuple tuple : mapping.getValue()) {
                String key = key(tuple.getKeyNode(), "the frontmatter field '" + field + "'");
                Node value = tuple.getValueNode();
                if (!(value instanceof ScalarNode s)) {
                    throw invalid(file, "the frontmatter field '" + field + "." + key + "' must be text, not "
                            + describe(value));
                }
                if (map.put(key, isNull(value) ? "" : s.getValue()) != null) {
                    throw invalid(file, "the frontmatter field '" + field + "' has the key '" + key + "' twice");
                }
            }
            return map;
        }

        /** Every field as written. */
        Map<String, Object> raw() {
            Map<String, Object> map = new LinkedHashMap<>();
            for (Map.Entry<String, Node> e : nodes.entrySet()) {
                map.put(e.getKey(), plain(e.getValue(), new HashSet<>()));
            }
            return map;
        }

        private Object plain(Node node, Set<Node> path) {
            if (node instanceof ScalarNode s) {
                return s.getValue();
            }
            if (!path.add(node)) {
                throw invalid(file, "the frontmatter refers to itself through an alias");
            }
            try {
                if (node instanceof SequenceNode seq) {
                    List<Object> list = new ArrayList<>();
                    for (Node item : seq.getValue()) {
                        list.add(plain(item, path));
                    }
                    return Collections.unmodifiableList(list);
                }
                Map<String, Object> map = new LinkedHashMap<>();
                for (NodeTuple tuple : ((MappingNode) node).getValue()) {
                    map.put(key(tuple.getKeyNode(), "the frontmatter"), plain(tuple.getValueNode(), path));
                }
                return Collections.unmodifiableMap(map);
            } finally {
                path.remove(node);
            }
        }

        private static boolean isNull(Node node) {
            return node instanceof ScalarNode && node.getTag().equals(Tag.NULL);
        }
    }
}
