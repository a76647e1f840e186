package dev.shelly.engine;

import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.ConfigLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * A project's {@code .shelly/} folder: {@code config.yaml}, {@code agents/}, {@code skills/},
 * curated context ({@code *.md}) and {@code sessions/}. A user's settings folder
 * ({@link #user}, {@code ~/.shelly}) has the same layout; its {@code config.yaml},
 * {@code agents/} and {@code skills/} lie under every project's.
 *
 * @param root the {@code .shelly} folder itself, absolute
 */
public record ShellyDir(Path root) {
    /** The folder's name. */
    public static final String NAME = ".shelly";
    /** The environment variable that names the user's settings folder instead of {@code ~/.shelly}. */
    public static final String HOME_VARIABLE = "SHELLY_HOME";

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
     * The user's settings folder: {@code $SHELLY_HOME} when it is set, else {@code .shelly} in
     * the home folder ({@code $HOME}, else {@code %USERPROFILE%}). Only the given environment is
     * read, so an engine or a test with an environment of its own reads no user's settings
     * unless that environment names them.
     *
     * @param env looks up environment variables
     * @return the folder, which may not exist; empty when the environment names no home folder
     */
    public static Optional<ShellyDir> user(Function<String, String> env) {
        String home = env.apply(HOME_VARIABLE);
        if (home != null && !home.isBlank()) {
            return Optional.of(new ShellyDir(Path.of(home)));
        }
        for (String variable : List.of("HOME", "USERPROFILE")) {
            String dir = env.apply(variable);
            if (dir != null && !dir.isBlank()) {
                return Optional.of(new ShellyDir(Path.of(dir).resolve(NAME)));
            }
        }
        return Optional.empty();
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
        return root.resolve(ConfigLoader.CONFIG_FILE);
    }

    /**
     * The folder of agents written as markdown, one {@code NAME.md} each.
     *
     * @return {@code .shelly/agents}
     */
    public Path agentsDir() {
        return root.resolve(ConfigLoader.AGENTS_DIR);
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
