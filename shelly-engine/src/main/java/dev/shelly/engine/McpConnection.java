package dev.shelly.engine;

import dev.shelly.tools.ToolBox;
import java.util.function.Supplier;

/**
 * An MCP server the engine connected, seen through the engine's own types, so that the
 * engine's classes load and run without shelly-mcp when no MCP server is configured.
 *
 * @param name the server's name, for logs
 * @param toolBox the server's live toolbox
 * @param close stops the server (a subprocess) or ends the session (HTTP)
 */
record McpConnection(String name, Supplier<ToolBox> toolBox, Runnable close) {}
