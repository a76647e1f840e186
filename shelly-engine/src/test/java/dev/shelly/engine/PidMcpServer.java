package dev.shelly.engine;

import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import dev.shelly.mcp.McpToolServer;

/** An MCP server over stdio whose one tool tells its process id; the engine tests start it. */
public final class PidMcpServer {
    private PidMcpServer() {}

    /**
     * Serves until stdin closes.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        ToolBox box = ToolBox.of(Tool.of("pid", "Tells the server's process id", "{\"type\":\"object\"}",
                (in, ctx) -> ToolOutput.text(Long.toString(ProcessHandle.current().pid()))));
        McpToolServer.builder(box).serverInfo("pid-server", "1.0.0").build().serveStdio();
        System.exit(0);
    }
}
