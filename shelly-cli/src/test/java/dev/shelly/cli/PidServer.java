package dev.shelly.cli;

import dev.shelly.mcp.McpToolServer;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;

/** An MCP server over stdio whose one tool tells its process id; a test project's skill brings it. */
public final class PidServer {
    private PidServer() {}

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
