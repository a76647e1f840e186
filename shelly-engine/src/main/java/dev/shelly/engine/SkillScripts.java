package dev.shelly.engine;

import dev.shelly.chats.ToolDefinition;
import dev.shelly.engine.config.ConfigLoader;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import dev.shelly.tools.internal.ChildProcesses;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

/**
 * The programs a skill's folder declares as tools ({@code tools:} of its {@code tools.yaml}). A
 * call starts the program with the call's arguments as JSON on its standard input and answers
 * with what it writes to standard output; an exit status other than 0 is an error result
 * carrying its standard error. A call ends with its program: what the program started and left
 * running is killed when it exits, and a call that outlives its timeout, or whose run is
 * cancelled, has the program and everything it started killed. (Where the system has
 * {@code setsid}, the program runs in a session of its own, so that a child it started in the
 * background is found after the program exited.)
 *
 * <p>The programs are not put in the coding toolbox's sandbox: that confines the command lines
 * the model writes ({@code run_command}), inside an agent's workspace, while a skill's program
 * has a command line its author fixed and the person installed, as an MCP server of
 * {@code config.yaml} has, and the engine runs both the same way: as its own children, with the
 * small environment MCP servers get. (The sandbox also hides the home directory, where the
 * user's skills live, and exists only for agents with a {@code coding:} section.) What the model
 * controls is the JSON on standard input, and whether a call runs at all is the approval
 * policy's to say, by the tool's name.
 */
final class SkillScripts {
    /** The most output kept from one call, per stream; the rest is read and dropped. */
    static final int MAX_OUTPUT = 1024 * 1024;
    /** How often the record of a running program's process tree is refreshed. */
    private static final Duration TREE_REFRESH = Duration.ofMillis(200);
    /** How long output may stay open after the program ended and what it left running was killed. */
    private static final Duration STREAM_END = Duration.ofSeconds(2);

    private SkillScripts() {}

    /** The declared programs as one toolbox. */
    static ToolBox toolbox(List<ConfigLoader.ScriptTool> tools) {
        List<Tool> all = new ArrayList<>(tools.size());
        for (ConfigLoader.ScriptTool t : tools) {
            all.add(new Tool(new ToolDefinition(t.name(), t.description(), t.inputSchema()),
                    (input, ctx) -> run(t, input), t.timeout()));
        }
        return ToolBox.of(all.toArray(Tool[]::new));
    }

    private static ToolOutput run(ConfigLoader.ScriptTool tool, JsonNode input) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(1 + tool.args().size());
        command.add(tool.command());
        command.addAll(tool.args());
        ProcessBuilder builder = new ProcessBuilder(command).directory(tool.workingDir().toFile());
        Map<String, String> env = builder.environment();
        ChildProcesses.keepInherited(env);
        env.putAll(tool.env());
        ChildProcesses.Tree tree;
        try {
            tree = ChildProcesses.start(builder);
        } catch (IOException e) {
            return ToolOutput.error("tool '" + tool.name() + "' could not start " + tool.command() + ": " + e.getMessage());
        }
        Process process = tree.process();
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        Thread out;
        Thread err;
        int status;
        try {
            out = Thread.ofVirtual().name("shelly-script-out-" + tool.name()).start(() -> drain(process.getInputStream(), stdout));
            err = Thread.ofVirtual().name("shelly-script-err-" + tool.name()).start(() -> drain(process.getErrorStream(), stderr));
            // On its own thread: a program that does not read its input would block a larger write
            // here until the pipe closes, which only its end (or its killing) does.
            byte[] json = input.toString().getBytes(StandardCharsets.UTF_8);
            Thread.ofVirtual().name("shelly-script-in-" + tool.name()).start(() -> feed(process.getOutputStream(), json));
            while (!process.waitFor(TREE_REFRESH.toMillis(), TimeUnit.MILLISECONDS)) {
                tree.record();
            }
            status = process.exitValue();
        } finally {
            // Also when it exited: what it left running would hold its output open, and the
            // call ends with the program.
            tree.kill();
        }
        out.join(STREAM_END);
        err.join(STREAM_END);
        String text = stdout.toString(StandardCharsets.UTF_8).stripTrailing();
        if (status != 0) {
            String why = stderr.toString(StandardCharsets.UTF_8).strip();
            return ToolOutput.error("tool '" + tool.name() + "' exited with status " + status
                    + (why.isEmpty() ? "" : ": " + why) + (text.isEmpty() ? "" : "\n" + text));
        }
        return ToolOutput.text(text);
    }

    /** Writes the input to the program's standard input and closes it. */
    private static void feed(OutputStream stdin, byte[] json) {
        try (stdin) {
            stdin.write(json);
        } catch (IOException e) {
            // The program need not read its input: a closed pipe is its choice.
        }
    }

    /** Reads a stream to its end, keeping at most {@link #MAX_OUTPUT} bytes. */
    private static void drain(InputStream in, ByteArrayOutputStream into) {
        byte[] buffer = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                int room = MAX_OUTPUT - into.size();
                if (room > 0) {
                    into.write(buffer, 0, Math.min(n, room));
                }
            }
        } catch (IOException e) {
            // The process was killed: what was read is what there is.
        }
    }
}
