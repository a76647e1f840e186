package dev.shelly.engine;

import dev.shelly.engine.config.ConfigException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A project's {@code .shelly/} folder: {@code config.yaml}, {@code skills/}, curated context
 * ({@code *.md}) and {@code sessions/}.
 *
 * @param root the {@code .shelly} folder itself, absolute
 */
public record ShellyDir(Path root) {
    /** The folder's name. */
    public static final String NAME = ".shelly";

    /** Normalises the root to an absolute path. */
    public ShellyDir {
        if (root == null) {
            throw new IllegalArgumentException("ShellyDir.root must not be null");
        }
        root = root.toAbsolutePath().normalize();
    }

    /**
     * Finds {@code .shelly/} in a folder or the nearest of its parents.
     *
     * @param start where to start looking
     * @return the folder, or empty when no parent has one
     */
    public static Optional<ShellyDir> find(Path start) {
        Path dir = start.toAbsolutePath().normalize();
        while (dir != null) {
            Path candidate = dir.resolve(NAME);
            if (Files.isDirectory(candidate)) {
                return Optional.of(new ShellyDir(candidate));
            }
            dir = dir.getParent();
        }
        return Optional.empty();
    }

    /**
     * Finds {@code .shelly/} like {@link #find(Path)}, failing clearly when there is none.
     *
     * @param start where to start looking
     * @return the folder
     * @throws ConfigException naming the start folder when no parent has one
     */
    public static ShellyDir require(Path start) {
        return find(start).orElseThrow(() -> new ConfigException(null, 0, "", "no " + NAME
                + " folder in " + start.toAbsolutePath().normalize() + " or any parent; create "
                + NAME + "/config.yaml"));
    }

    /**
     * The folder holding {@code .shelly/}: the project's root.
     *
     * @return the project folder
     */
    public Path projectDir() {
        return root.getParent() == null ? root : root.getParent();
    }

    /**
     * The configuration file.
     *
     * @return {@code .shelly/config.yaml}
     */
    public Path configFile() {
        return root.resolve("config.yaml");
    }

    /**
     * The skills folder.
     *
     * @return {@code .shelly/skills}
     */
    public Path skillsDir() {
        return root.resolve("skills");
    }

    /**
     * The sessions folder.
     *
     * @return {@code .shelly/sessions}
     */
    public Path sessionsDir() {
        return root.resolve("sessions");
    }

    /**
     * The curated context files: every {@code *.md} directly in {@code .shelly/}, by name.
     *
     * @return the files, sorted by name
     */
    public List<Path> contextFiles() {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(root)) {
            List<Path> found = new ArrayList<>(files
                    .filter(p -> p.getFileName().toString().endsWith(".md") && Files.isRegularFile(p))
                    .toList());
            found.sort(null);
            return found;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + root + ": " + e.getMessage(), e);
        }
    }

    /**
     * The project context agents see: each curated file under a heading with its name.
     *
     * @return the context text, empty when there are no files
     * @throws UncheckedIOException naming a file that cannot be read
     */
    public String projectContext() {
        StringBuilder sb = new StringBuilder();
        for (Path file : contextFiles()) {
            String text;
            try {
                text = Files.readString(file).strip();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read context file " + file + ": " + e.getMessage(), e);
            }
            if (text.isEmpty()) {
                continue;
            }
            if (!sb.isEmpty()) {
                sb.append("\n\n");
            }
            sb.append("### ").append(file.getFileName()).append("\n\n").append(text);
        }
        return sb.toString();
    }
}
