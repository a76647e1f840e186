package dev.shelly.engine;

import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.McpServerConfig;
import dev.shelly.mcp.McpEndpoint;
import dev.shelly.mcp.McpToolClient;
import java.net.URI;
import java.nio.file.Path;

/**
 * Connects the configured MCP servers. The only engine class that names a type of shelly-mcp,
 * an optional dependency: the engine loads it only when the config lists MCP servers, after
 * {@link McpSupport#require} has checked that shelly-mcp is there.
 */
final class McpServers {
    private McpServers() {}

    static McpConnection connect(McpServerConfig server, int index, EngineConfig config, Path projectDir) {
        McpEndpoint endpoint;
        if (server.isStdio()) {
            Path cwd = server.workingDir() == null ? projectDir : projectDir.resolve(server.workingDir());
            endpoint = new McpEndpoint.Stdio(server.command(), server.args(), server.env(), cwd, false);
        } else {
            endpoint = new McpEndpoint.Http(URI.create(server.url()), server.headers());
        }
        McpToolClient client;
        try {
            client = McpToolClient.builder(endpoint).name(server.name()).connect();
        } catch (RuntimeException e) {
            ConfigException error = config.errorAt("mcp_servers[" + index + "]", "MCP server '" + server.name()
                    + "' did not start: " + e.getMessage());
            error.initCause(e);
            throw error;
        }
        return new McpConnection(client.name(), client::toolBox, client::close);
    }
}
