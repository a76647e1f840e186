package dev.shelly.skills;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A procedure an agent knows: a folder holding a {@code SKILL.md} whose YAML frontmatter
 * describes the skill (in the <a href="https://agentskills.io/specification">Agent Skills</a>
 * format) and whose body says, step by step, what to do. Supplementary files (checklists,
 * scripts, templates) may sit beside it in the folder.
 *
 * <pre>{@code
 * ---
 * name: code-review
 * description: How to review a change
 * license: Apache-2.0
 * allowed-tools: read_file grep
 * metadata:
 *   version: "1.2"
 * ---
 * 1. Read the diff ...
 * }</pre>
 *
 * <p>A skill is immutable. Skills are knowledge, not identity: an agent lists them in its system
 * prompt and can load one with its {@code load_skill} tool.
 *
 * @param name the skill's name: the folder's name
 * @param description what the skill is for, from the frontmatter; empty when not given
 * @param content the body of {@code SKILL.md} after the frontmatter, with leading blank lines and
 *     trailing white space removed and line ends normalised to {@code \n}
 * @param dir the absolute path of the skill's folder, or null for a skill made in code
 * @param license the license's name or the name of a bundled license file, or null
 * @param compatibility the environment the skill needs (products, packages, network), or null
 * @param allowedTools the tools the skill expects to use, in order; empty when not given (null
 *     is taken as empty)
 * @param metadata further key-value pairs from the frontmatter's {@code metadata} mapping, with
 *     values as written (null is taken as empty)
 * @param frontmatter every frontmatter field as written, standard or not: scalars as their text,
 *     sequences as lists and mappings as maps; empty when the file has no frontmatter (null is
 *     taken as empty)
 */
public record Skill(String name, String description, String content, Path dir, String license,
        String compatibility, List<String> allowedTools, Map<String, String> metadata,
        Map<String, Object> frontmatter) {

    /** Validates and copies every field. */
    public Skill {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("Skill.name must not be null or blank");
        }
        if (description == null) {
            throw new IllegalArgumentException("Skill.description of '" + name + "' must not be null");
        }
        if (content == null) {
            throw new IllegalArgumentException("Skill.content of '" + name + "' must not be null");
        }
        if (dir != null && !dir.isAbsolute()) {
            throw new IllegalArgumentException("Skill.dir of '" + name + "' must be an absolute path, was " + dir);
        }
        allowedTools = copyList(allowedTools, "Skill.allowedTools of '" + name + "'");
        metadata = copyMetadata(metadata, name);
        frontmatter = frontmatter == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(frontmatter));
    }

    /**
     * A skill made in code, without a folder.
     *
     * @param name the skill's name
     * @param description what it is for; may be empty
     * @param content the procedure
     * @return the skill
     */
    public static Skill of(String name, String description, String content) {
        return new Skill(name, description, content, null, null, null, List.of(), Map.of(), Map.of());
    }

    /**
     * Loads the skill in a folder holding a {@code SKILL.md}.
     *
     * <p>The name is the folder's name. The frontmatter is optional; when present it must be a
     * YAML mapping, each standard field must have its standard type, and a {@code name} field
     * must equal the folder's name.
     *
     * @param folder the skill's folder
     * @return the skill, with {@link #dir()} the folder's absolute path
     * @throws SkillException when the folder or its {@code SKILL.md} is missing or unreadable, or
     *     the frontmatter is malformed; the message names the file and the reason
     */
    public static Skill load(Path folder) {
        return SkillFile.load(folder);
    }

    /**
     * Loads every skill in the subfolders of a directory, in the order of the folders' names.
     *
     * <p>Subfolders without a {@code SKILL.md}, and plain files, are skipped.
     *
     * @param dir the directory whose subfolders are skills, such as {@code .shelly/skills}
     * @return the skills, sorted by name
     * @throws SkillException when the directory is missing or unreadable, or any skill fails to
     *     load; the message names every failing file and its reason
     */
    public static List<Skill> loadDir(Path dir) {
        return SkillFile.loadDir(dir);
    }

    private static List<String> copyList(List<String> list, String field) {
        if (list == null) {
            return List.of();
        }
        List<String> copy = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            String s = list.get(i);
            if (s == null || s.isBlank()) {
                throw new IllegalArgumentException(field + "[" + i + "] must not be null or blank");
            }
            copy.add(s);
        }
        return Collections.unmodifiableList(copy);
    }

    private static Map<String, String> copyMetadata(Map<String, String> metadata, String name) {
        if (metadata == null || metadata.isEmpty()) {
            return Map.of();
        }
        Map<String, String> copy = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : metadata.entrySet()) {
            if (e.getKey() == null || e.getValue() == null) {
                throw new IllegalArgumentException("Skill.metadata of '" + name + "' must not hold null keys or values");
            }
            copy.put(e.getKey(), e.getValue());
        }
        return Collections.unmodifiableMap(copy);
    }
}
