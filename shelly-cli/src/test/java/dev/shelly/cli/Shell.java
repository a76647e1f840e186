package dev.shelly.cli;

import dev.shelly.engine.Engine;
import dev.shelly.modeladapter.Completer;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A person at a pipe: runs {@code shelly} commands in-process, in a project folder, with the
 * lines they type, an environment of the test's own (none of the process's variables), and a
 * model of the test's choice for the provider {@code main}.
 */
final class Shell {
    /** A project with two agents on one provider; the assistant works on the project's files. */
    static final String CONFIG = """
            providers:
              - name: main
                kind: anthropic
                model: claude-sonnet-4-5
            agents:
              - name: assistant
                description: Helps with the project
                instructions: Help with the project in this folder.
                provider: main
                coding:
                  workspace: .
              - name: reviewer
                description: Reviews changes
                instructions: Review the change you are given.
                provider: main
                skills: []
            entry_agent: assistant
            """;

    /** What a command did: its exit status and everything it wrote. */
    record Result(int status, String out, String err) {}

    final Path root;
    final Map<String, String> env = new HashMap<>();
    final FakeInterrupts interrupts = new FakeInterrupts();
    Path cwd;
    private InputStream keys = InputStream.nullInputStream();
    private UnaryOperator<Engine.Builder> extras = UnaryOperator.identity();

    Shell(Path root) {
        this.root = root;
        this.cwd = root;
    }

    /** A shell in a project whose config is {@link #CONFIG}, answered by a model. */
    static Shell project(Path root, Completer model) throws IOException {
        Shell shell = new Shell(root).model(model);
        shell.config(CONFIG);
        return shell;
    }

    /** Types from this stream, for the runs given no input of their own. */
    void input(InputStream stream) {
        keys = stream;
    }

    /** Answers the provider {@code main} with this model instead of building it. */
    Shell model(Completer model) {
        extras = builder -> builder.completer("main", model);
        return this;
    }

    /** Writes {@code .shelly/config.yaml}. */
    void config(String yaml) throws IOException {
        Files.createDirectories(root.resolve(".shelly"));
        Files.writeString(root.resolve(".shelly/config.yaml"), yaml);
    }

    /**
     * Runs {@code shelly args...} with these lines as standard input.
     *
     * @param input what is typed, lines ended by {@code \n}; null to read the stream given to {@link #input}
     */
    Result run(String input, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        BufferedReader typed = input != null ? new BufferedReader(new StringReader(input))
                : new BufferedReader(new InputStreamReader(keys, StandardCharsets.UTF_8));
        Terminal terminal = new Terminal(typed,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                env, cwd, false, false, interrupts);
        int status = new Cli(terminal, extras).run(args);
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The ids of the project's saved sessions, by their files. */
    java.util.List<String> sessions() throws IOException {
        Path dir = root.resolve(".shelly/sessions");
        if (!Files.isDirectory(dir)) {
            return java.util.List.of();
        }
        try (var files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json"))
                    .map(n -> n.substring(0, n.length() - ".json".length())).sorted().toList();
        }
    }
}
