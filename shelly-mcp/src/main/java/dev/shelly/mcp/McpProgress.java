package dev.shelly.mcp;

/**
 * Progress a server reported on a tool call ({@code notifications/progress}).
 *
 * @param server the server's name
 * @param tool the tool's name, as the client's toolbox calls it
 * @param progress how far, increasing
 * @param total the total, or null when unknown
 * @param message what is being done, or null
 */
public record McpProgress(String server, String tool, double progress, Double total, String message) {}
