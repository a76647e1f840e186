package dev.shelly.examples;

import dev.shelly.agent.Agent;
import dev.shelly.chats.Message;
import dev.shelly.coding.CodingTools;
import dev.shelly.testing.Step;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A coding agent on a small bundled project: it lists and reads the code, runs the project's
 * checks, fixes the bug with an exact edit and runs the checks again. The coding toolbox keeps it
 * inside a copy of the project in a temporary directory; it may run only {@code java}.
 *
 * <p>This example runs every call itself. An application with a person in the loop puts
 * {@code coding.policy()} into its {@code Approvals}: reads and searches run, edits and commands
 * wait for a decision (see the {@code approval} example).
 */
public final class CoderExample implements Example {
    /** The files of the bundled sample project. */
    static final List<String> SAMPLE = List.of("Calc.java", "README.md");

    @Override
    public String name() {
        return "coder";
    }

    @Override
    public String description() {
        return "a coding agent reads, fixes and tests a small bundled project inside its workspace";
    }

    @Override
    public String defaultPrompt() {
        return "The checks of this project fail. Find the bug, fix it, and run the checks again.";
    }

    @Override
    public Message run(ExampleRun run) throws Exception {
        Path workspace = copySample(run.workFolder("shelly-coder-"));
        CodingTools coding = CodingTools.builder(workspace)
                .allowCommands("java")
                .prependSearchPath(Path.of(System.getProperty("java.home"), "bin"))
                .timeout(Duration.ofSeconds(120))
                .build();
        run.note("[workspace: a copy of the sample project; commands allowed: java]");
        Agent coder = Agent.builder("coder")
                .description("Fixes code in its workspace")
                .instructions("You work on the project in your workspace. List and read the files, run the checks "
                        + "with run_command (program java, args [Calc.java]), fix what fails with fs_edit, and run the "
                        + "checks again. Finish with one sentence saying what you changed.")
                .completer(run.model(script()))
                .toolboxes(coding.toolBox())
                .maxIterations(12)
                .listener(run.listener())
                .build();
        return coder.run(run.prompt());
    }

    static Path copySample(Path dir) throws IOException {
        for (String name : SAMPLE) {
            try (InputStream in = CoderExample.class.getResourceAsStream("coder-sample/" + name)) {
                if (in == null) {
                    throw new UncheckedIOException(new IOException("sample file " + name + " is missing from the jar"));
                }
                Files.copy(in, dir.resolve(name));
            }
        }
        return dir;
    }

    /** The scripted model: look, test, fix, test again, answer. */
    static List<Step> script() {
        String runChecks = "{\"program\":\"java\",\"args\":[\"Calc.java\"]}";
        return List.of(
                Step.toolCall(CodingTools.LIST, "{}"),
                Step.toolCall(CodingTools.RUN, runChecks),
                Step.toolCall(CodingTools.READ, "{\"path\":\"Calc.java\",\"start_line\":5,\"end_line\":7}"),
                Step.toolCall(CodingTools.EDIT, Scripts.object("path", "Calc.java", "old_text", "return a - b;",
                        "new_text", "return a + b;")),
                Step.toolCall(CodingTools.RUN, runChecks),
                Step.reply("Fixed add in Calc.java: it subtracted instead of adding; all checks pass now."));
    }
}
