package dev.shelly.engine;

import dev.shelly.chats.ToolDefinition;
import dev.shelly.engine.config.ConfigLoader;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * The programs a skill's folder declares as tools ({@code tools:} of its {@code tools.yaml}). A
 * call starts the program with the call's arguments as JSON on its standard input and answers
 * with what it writes to standard output; an exit status other than 0 is an error result
 * carrying its standard error. A call that outlives its timeout, or whose run is cancelled, has
 * the program and everything it started killed.
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
    /** What a program inherits from the JVM's environment: what MCP servers get. */
    private static final Set<String> INHERITED = Set.of("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER");

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
        env.keySet().retainAll(INHERITED);
        env.putAll(tool.env());
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            return ToolOutput.error("tool '" + tool.name() + "' could not start " + tool.command() + ": " + e.getMessage());
        }
        try {
            ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            ByteArrayOutputStream stderr = new ByteArrayOutputStream();
            Thread out = Thread.ofVirtual().name("shelly-script-out-" + tool.name()).start(() -> drain(process.getInputStream(), stdout));
            Thread err = Thread.ofVirtual().name("shelly-script-err-" + tool.name())
                    .start(() -> drain(process.getErrorStream(), stderr));
            try (OutputStream stdin = process.getOutputStream()) {
                stdin.write(input.toString().getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                // The program need not read its input: a closed pipe is its choice.
            }
            int status = process.waitFor();
            out.join();
            err.join();
            String text = stdout.toString(StandardCharsets.UTF_8).stripTrailing();
            if (status != 0) {
                String why = stderr.toString(StandardCharsets.UTF_8).strip();
                return ToolOutput.error("tool '" + tool.name() + "' exited with status " + status
                        + (why.isEmpty() ? "" : ": " + why) + (text.isEmpty() ? "" : "\n" + text));
            }
            return ToolOutput.text(text);
        } finally {
            if (process.isAlive()) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
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
