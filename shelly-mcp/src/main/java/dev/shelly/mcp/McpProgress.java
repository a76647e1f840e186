package dev.shelly.mcp;

import dev.shelly.tools.ToolContext;

/**
 * Progress a server reported on a tool call ({@code notifications/progress}).
 *
 * @param server the server's name
 * @param tool the tool's name, as the client's toolbox calls it
 * @param progress how far, increasing
 * @param total the total, or null when unknown
 * @param message what is being done, or null
 * @param caller the context of the tool call (its agent and run), or null when unknown
 */
public record McpProgress(String server, String tool, double progress, Double total, String message, ToolContext caller) {}
