package dev.shelly.examples;

import dev.shelly.tools.Description;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import dev.shelly.mcp.McpEndpoint;
import dev.shelly.mcp.McpToolServer;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small MCP server for the {@code mcp} example: a few read-only demo files behind the tools
 * {@code list_files} and {@code read_file}, served over stdio with {@link McpToolServer}.
 *
 * <p>Run as its own process ({@link #endpoint()} says how); stdout carries the protocol only,
 * logs go to stderr.
 */
public final class DemoMcpServer {
    /** The server's name in the MCP handshake. */
    public static final String NAME = "shelly-demo-files";

    static final Map<String, String> FILES = files();

    /** The input of {@code read_file}. */
    record FilePath(@Description("the file's name, as list_files gives it") String path) {}

    private DemoMcpServer() {}

    /**
     * Serves the demo files on stdin and stdout until the client closes stdin, then exits.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        McpToolServer.builder(toolBox()).serverInfo(NAME, "1.0.0")
                .instructions("Read-only demo files: list them with list_files, read one with read_file.")
                .build()
                .serveStdio();
        System.exit(0);
    }

    /** The tools the server offers. */
    static ToolBox toolBox() {
        return ToolBox.of(
                Tool.of("list_files", "List the files, one name per line", "{\"type\":\"object\",\"properties\":{}}",
                        (in, ctx) -> ToolOutput.text(String.join("\n", FILES.keySet()))),
                Tool.typed("read_file", "Read a file's text", FilePath.class, (in, ctx) -> {
                    String text = FILES.get(in.path().strip());
                    return text != null ? ToolOutput.text(text)
                            : ToolOutput.error("no file '" + in.path() + "'; files: " + String.join(", ", FILES.keySet()));
                }));
    }

    /**
     * How to start this server as a subprocess: the java launcher of the running JVM, with the
     * running program's classpath (the examples jar, when run from it), whatever the working
     * directory.
     *
     * @return the endpoint
     */
    public static McpEndpoint.Stdio endpoint() {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> classpath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.isBlank()) {
                classpath.add(Path.of(entry).toAbsolutePath().toString());
            }
        }
        // The JVM's own warnings go to stdout unless told otherwise; stdout is the protocol's.
        // A small server that lives for seconds: start fast rather than optimise for long.
        List<String> args = List.of("-XX:+DisplayVMOutputToStderr", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", String.join(File.pathSeparator, classpath), DemoMcpServer.class.getName());
        return new McpEndpoint.Stdio(java, args, Map.of(), null, false);
    }

    private static Map<String, String> files() {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("meeting-notes.md", """
                # Team meeting, 3 March
                - Ship the 0.2 release; deadline: 14 March.
                - Ada reviews the MCP client this week.
                - Next meeting: 10 March.
                """);
        files.put("roadmap.md", """
                # Roadmap
                - 0.2: the engine and the examples.
                - 0.3: sessions over HTTP; the design is due by the end of April (a hard deadline).
                """);
        files.put("shopping.txt", """
                milk
                bread
                coffee
                """);
        return Collections.unmodifiableMap(files);
    }
}
