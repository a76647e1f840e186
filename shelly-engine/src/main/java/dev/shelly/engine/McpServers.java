package dev.shelly.engine;

import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.McpServerConfig;
import dev.shelly.mcp.McpEndpoint;
import dev.shelly.mcp.McpToolClient;
import java.net.URI;
import java.nio.file.Path;

/** Connects the configured MCP servers. */
final class McpServers {
    private McpServers() {}

    static McpToolClient connect(McpServerConfig server, int index, EngineConfig config, Path projectDir) {
        McpEndpoint endpoint;
        if (server.isStdio()) {
            Path cwd = server.workingDir() == null ? projectDir : projectDir.resolve(server.workingDir());
            endpoint = new McpEndpoint.Stdio(server.command(), server.args(), server.env(), cwd, false);
        } else {
            endpoint = new McpEndpoint.Http(URI.create(server.url()), server.headers());
        }
        try {
            return McpToolClient.builder(endpoint).name(server.name()).connect();
        } catch (RuntimeException e) {
            ConfigException error = config.errorAt("mcp_servers[" + index + "]", "MCP server '" + server.name()
                    + "' did not start: " + e.getMessage());
            error.initCause(e);
            throw error;
        }
    }
}
