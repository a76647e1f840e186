package dev.shelly.cli;

import dev.shelly.chats.ShellyException;
import dev.shelly.engine.Engine;
import dev.shelly.engine.ShellyDir;
import dev.shelly.engine.config.ConfigLoader;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.mcp.McpOAuth;
import dev.shelly.modeladapter.Completer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The project a command works on, and the engine over its {@code .shelly/} folder.
 *
 * <p>The root is {@code --root} when given; else the nearest folder, from the working directory
 * upward, that holds {@code .shelly/}; else the nearest that holds {@code .git}; else the working
 * directory.
 */
final class Project {
    private final Path root;
    private final Terminal terminal;
    private final UnaryOperator<Engine.Builder> extras;

    /**
     * @param root the project folder
     * @param terminal the environment the engine reads
     * @param extras what the program adds to every engine it builds (tests: scripted models)
     */
    Project(Path root, Terminal terminal, UnaryOperator<Engine.Builder> extras) {
        this.root = root;
        this.terminal = terminal;
        this.extras = extras;
    }

    /**
     * Finds the project root.
     *
     * @param given the {@code --root} option, if any; relative to the working directory
     * @param cwd the working directory
     * @return the root, absolute
     * @throws CommandException when {@code --root} names no folder
     */
    static Path findRoot(Optional<String> given, Path cwd) {
        if (given.isPresent()) {
            Path dir = cwd.resolve(given.get()).toAbsolutePath().normalize();
            if (!Files.isDirectory(dir)) {
                throw CommandException.failed("--root " + given.get() + ": no such folder (" + dir + ")");
            }
            return dir;
        }
        Path start = cwd.toAbsolutePath().normalize();
        return nearestWith(start, ShellyDir.NAME).or(() -> nearestWith(start, ".git")).orElse(start);
    }

    private static Optional<Path> nearestWith(Path start, String name) {
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve(name))) {
                return Optional.of(dir);
            }
        }
        return Optional.empty();
    }

    Path root() {
        return root;
    }

    /** The {@code .shelly} folder, which may not exist yet. */
    ShellyDir shellyDir() {
        return new ShellyDir(root.resolve(ShellyDir.NAME));
    }

    /**
     * The {@code .shelly} folder of a project that has one.
     *
     * @throws CommandException saying to run {@code shelly init} when there is none
     */
    ShellyDir requireDir() {
        ShellyDir dir = shellyDir();
        if (!Files.isDirectory(dir.root())) {
            throw CommandException.failed("no " + ShellyDir.NAME + " folder in " + root
                    + "; create one with: shelly init (or name the project with --root DIR)");
        }
        return dir;
    }

    /**
     * Builds the engine of the project's settings: its {@code .shelly/config.yaml} and
     * {@code agents/}, over the user's ({@code $SHELLY_HOME}, else {@code ~/.shelly}), under the
     * environment's overrides. What the build warns about goes to standard error, one line each.
     *
     * @param talks whether models are called: when false (listing agents, skills, sessions),
     *     no provider is built, so no key is needed, and a model call fails
     * @param sessionWait how long opening a session waits for another process that holds it
     * @return the engine; close it
     * @throws dev.shelly.engine.config.ConfigException naming the file, line and field of a problem
     */
    Engine engine(boolean talks, Duration sessionWait) {
        return engine(talks, sessionWait, McpConsent.refusing());
    }

    /**
     * The project's engine, with the person's consent step for MCP servers that need their
     * authorization.
     *
     * @param talks whether models are called
     * @param sessionWait how long opening a session waits for another process that holds it
     * @param consent asks the person, or refuses when nobody is there to ask
     * @return the engine; close it
     */
    Engine engine(boolean talks, Duration sessionWait, McpOAuth.Consent consent) {
        ShellyDir dir = requireDir();
        ShellyDir user = ShellyDir.user(terminal.env()::get).orElse(null);
        EngineConfig config = ConfigLoader.loadSettings(dir.root(), user == null ? null : user.root(),
                terminal.env()::get);
        Engine.Builder builder = Engine.builder().dir(dir).userDir(user).config(config)
                .environment(terminal.env()::get).sessionWait(sessionWait).mcpConsent(consent);
        if (!talks) {
            for (ProviderConfig provider : config.providers()) {
                builder.completer(provider.name(), silent(provider.name()));
            }
        }
        Engine engine = extras.apply(builder).build();
        engine.warnings().forEach(w -> terminal.err().println(terminal.bold("warning: ") + w));
        return engine;
    }

    /** Stands for a provider in a command that calls no model. */
    private static Completer silent(String provider) {
        return request -> {
            throw new ShellyException("provider '" + provider + "' is not called by this command");
        };
    }
}
