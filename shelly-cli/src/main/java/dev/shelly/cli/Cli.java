package dev.shelly.cli;

import dev.shelly.engine.Engine;
import dev.shelly.engine.config.ConfigException;
import dev.shelly.storage.SessionBusyException;
import dev.shelly.storage.SessionNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The command line: {@code shelly [--root DIR] <command> [options]}. Finds the command, reads its
 * arguments, finds the project, runs it, and turns every failure into one line on standard
 * error (with the stack trace only when {@code SHELLY_DEBUG} is set) and an exit status.
 */
final class Cli {
    private final Terminal terminal;
    private final UnaryOperator<Engine.Builder> extras;
    private final Map<String, Command> commands = new LinkedHashMap<>();

    /**
     * @param terminal the streams and environment to run with
     * @param extras what to add to every engine built (tests: scripted models); identity otherwise
     */
    Cli(Terminal terminal, UnaryOperator<Engine.Builder> extras) {
        this.terminal = terminal;
        this.extras = extras;
        for (Command c : List.of(new InitCommand(terminal), new ChatCommand(terminal), new RunCommand(terminal),
                new SessionsCommand(terminal), new AgentsCommand(terminal), new SkillsCommand(terminal))) {
            commands.put(c.name(), c);
        }
    }

    /** Whether {@code SHELLY_DEBUG} asks for debug logging and stack traces. */
    static boolean debug(Map<String, String> env) {
        String value = env.getOrDefault("SHELLY_DEBUG", "").strip();
        return !value.isEmpty() && !value.equals("0") && !value.equalsIgnoreCase("false");
    }

    /**
     * Runs a command line.
     *
     * @param argv the arguments after {@code shelly}
     * @return the exit status
     */
    int run(String... argv) {
        try {
            return dispatch(Arrays.asList(argv));
        } catch (CommandException e) {
            return fail(e, e.getMessage(), e.status());
        } catch (ConfigException e) {
            return fail(e, e.getMessage(), CommandException.FAILED);
        } catch (SessionNotFoundException e) {
            return fail(e, e.getMessage() + "; shelly sessions lists the saved ones", CommandException.FAILED);
        } catch (SessionBusyException e) {
            return fail(e, e.getMessage() + " (another shelly may have it open)", CommandException.FAILED);
        } catch (IOException e) {
            return fail(e, "cannot read or write the terminal: " + e.getMessage(), CommandException.FAILED);
        } catch (UncheckedIOException e) {
            return fail(e, e.getMessage(), CommandException.FAILED);
        } catch (RuntimeException e) {
            return fail(e, describe(e), CommandException.FAILED);
        }
    }

    private int dispatch(List<String> argv) throws IOException {
        List<String> global = new ArrayList<>();
        int at = 0;
        while (at < argv.size() && argv.get(at).startsWith("-")) {
            global.add(argv.get(at++));
            if (global.getLast().equals(Args.ROOT) && at < argv.size()) {
                global.add(argv.get(at++));
            }
        }
        Args options = Args.parse("", global, Set.of(), Set.of());
        if (options.has(Args.HELP) || at < argv.size() && argv.get(at).equals("help")) {
            String topic = options.has(Args.HELP) || at + 1 >= argv.size() ? "shelly" : argv.get(at + 1);
            if (!topic.equals("shelly") && !commands.containsKey(topic)) {
                throw unknown(topic);
            }
            terminal.out().print(help(topic));
            return 0;
        }
        if (at == argv.size()) {
            terminal.err().print(help("shelly"));
            return CommandException.USAGE;
        }
        String name = argv.get(at);
        Command command = commands.get(name);
        if (command == null) {
            throw unknown(name);
        }
        Args args = Args.parse(name, argv.subList(at + 1, argv.size()), command.flags(), command.options());
        if (args.has(Args.HELP)) {
            terminal.out().print(help(name));
            return 0;
        }
        Optional<String> root = options.value(Args.ROOT);
        if (root.isPresent() && args.value(Args.ROOT).isPresent()) {
            throw Args.usage(name, Args.ROOT + " is given twice");
        }
        Project project = new Project(Project.findRoot(root.or(() -> args.value(Args.ROOT)), terminal.cwd()),
                terminal, extras);
        return command.run(args, project);
    }

    private CommandException unknown(String name) {
        return Args.usage("", "unknown command '" + name + "'; the commands are " + String.join(", ", commands.keySet()));
    }

    /** The help of a command, or of {@code shelly} itself. */
    static String help(String topic) {
        return resource("help/" + topic + ".txt");
    }

    /** A text file shipped in the jar beside these classes. */
    static String resource(String path) {
        try (InputStream in = Cli.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("the jar has no " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path + " from the jar", e);
        }
    }

    private int fail(Exception e, String message, int status) {
        terminal.out().flush();
        terminal.err().println(terminal.red("error: ") + message);
        trace(terminal, e);
        return status;
    }

    /** A failure in one line: its message, or its type when it has none. */
    static String describe(Throwable failure) {
        String message = failure.getMessage();
        return message == null || message.isBlank() ? failure.toString() : message.strip().replaceAll("\\s*\\R\\s*", " ");
    }

    /** The stack trace of a failure on standard error, when {@code SHELLY_DEBUG} asks for it. */
    static void trace(Terminal terminal, Throwable failure) {
        if (debug(terminal.env())) {
            failure.printStackTrace(terminal.err());
        }
    }
}
