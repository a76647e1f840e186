package dev.shelly.engine;

import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.McpServerConfig;
import java.nio.file.Path;
import java.util.List;

/**
 * Whether shelly-mcp, an optional dependency of the engine, is on the class path. Names no MCP
 * type, so it loads without it; the engine asks it before it touches {@link McpServers}.
 */
final class McpSupport {
    /** The class whose presence means shelly-mcp is there. */
    static final String CLIENT_CLASS = "dev.shelly.mcp.McpToolClient";

    private McpSupport() {}

    /**
     * Checks that a config listing MCP servers can have them.
     *
     * @param config the engine's config
     * @param loader the class loader the engine's classes come from
     * @throws dev.shelly.engine.config.ConfigException at {@code mcp_servers} when the config
     *     lists MCP servers and shelly-mcp cannot be loaded
     */
    static void require(EngineConfig config, ClassLoader loader) {
        if (config.mcpServers().isEmpty()) {
            return;
        }
        try {
            Class.forName(CLIENT_CLASS, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            List<String> names = config.mcpServers().stream().map(McpServerConfig::name).toList();
            throw config.errorAt("mcp_servers", "MCP servers are configured (" + String.join(", ", names)
                    + "), but shelly-mcp is not on the class path; add the dependency dev.shelly:shelly-mcp "
                    + "(the engine depends on it as optional, so that applications without MCP servers do not carry it)");
        }
    }

    /**
     * Checks that a skill's file listing MCP servers can have them.
     *
     * @param file the skill's {@code tools.yaml}
     * @param servers the servers it lists, not empty
     * @param loader the class loader the engine's classes come from
     * @throws ConfigException at the file's {@code mcp_servers} when shelly-mcp cannot be loaded
     */
    static void require(Path file, List<McpServerConfig> servers, ClassLoader loader) {
        try {
            Class.forName(CLIENT_CLASS, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            List<String> names = servers.stream().map(McpServerConfig::name).toList();
            throw new ConfigException(file.toString(), 0, "mcp_servers", "the skill brings MCP servers ("
                    + String.join(", ", names) + "), but shelly-mcp is not on the class path; add the dependency "
                    + "dev.shelly:shelly-mcp");
        }
    }
}
