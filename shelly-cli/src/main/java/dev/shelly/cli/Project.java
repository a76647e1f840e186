package dev.shelly.cli;

import dev.shelly.chats.ShellyException;
import dev.shelly.engine.Engine;
import dev.shelly.engine.ShellyDir;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.ConfigLoader;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.Completer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
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
     * Builds the engine of the project's configuration.
     *
     * @param agent the agent new sessions talk to, or null for the configured entry agent
     * @param talks whether models are called: when false (listing agents, skills, sessions),
     *     no provider is built, so no key is needed, and a model call fails
     * @param sessionWait how long opening a session waits for another process that holds it
     * @return the engine; close it
     * @throws dev.shelly.engine.config.ConfigException naming the file, line and field of a problem
     * @throws CommandException when the agent is not configured
     */
    Engine engine(String agent, boolean talks, Duration sessionWait) {
        ShellyDir dir = requireDir();
        EngineConfig config = ConfigLoader.load(dir.configFile(), terminal.env()::get);
        if (agent != null) {
            config = withEntryAgent(config, agent);
        }
        Engine.Builder builder = Engine.builder().dir(dir).config(config).environment(terminal.env()::get)
                .sessionWait(sessionWait);
        if (!talks) {
            for (ProviderConfig provider : config.providers()) {
                builder.completer(provider.name(), silent(provider.name()));
            }
        }
        return extras.apply(builder).build();
    }

    /**
     * The configuration with another entry agent. The file's own checks run first, so that a
     * problem is still reported at its line.
     */
    private static EngineConfig withEntryAgent(EngineConfig config, String agent) {
        List<String> names = config.agents().stream().map(AgentConfig::name).toList();
        if (!names.contains(agent)) {
            throw CommandException.failed("unknown agent '" + agent + "'; the agents of "
                    + config.file().orElse("the configuration") + " are: " + String.join(", ", names));
        }
        if (config.entryAgent().filter(agent::equals).isPresent()) {
            return config;
        }
        config.check(null, Set.of());
        EngineConfig.Builder copy = EngineConfig.builder().entryAgent(agent)
                .prices(config.prices()).contextWindows(config.contextWindows());
        config.providers().forEach(copy::provider);
        config.mcpServers().forEach(copy::mcpServer);
        config.agents().forEach(copy::agent);
        config.redis().ifPresent(copy::redis);
        config.approvals().ifPresent(copy::approvals);
        config.telemetry().ifPresent(copy::telemetry);
        return copy.build();
    }

    /** Stands for a provider in a command that calls no model. */
    private static Completer silent(String provider) {
        return request -> {
            throw new ShellyException("provider '" + provider + "' is not called by this command");
        };
    }
}
