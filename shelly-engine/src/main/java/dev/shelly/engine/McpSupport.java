package dev.shelly.engine;

import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.McpServerConfig;
import java.util.List;
import java.util.function.Function;

/**
 * Whether shelly-mcp, an optional dependency of the engine, is on the class path. Names no MCP
 * type, so it loads without it; the engine asks it before it touches {@link McpServers}.
 */
final class McpSupport {
    /** The class whose presence means shelly-mcp is there. */
    static final String CLIENT_CLASS = "dev.shelly.mcp.McpToolClient";

    private McpSupport() {}

    /**
     * Checks that the MCP servers a file lists ({@code config.yaml}, or a skill's
     * {@code tools.yaml}) can be had.
     *
     * @param servers the servers the file lists; none need nothing
     * @param listed how the error says they are listed: "MCP servers are configured", "the skill
     *     brings MCP servers"
     * @param loader the class loader the engine's classes come from
     * @param error the error at the file's {@code mcp_servers}, from its message
     * @throws ConfigException from {@code error} when servers are listed and shelly-mcp cannot be
     *     loaded
     */
    static void require(List<McpServerConfig> servers, String listed, ClassLoader loader,
            Function<String, ConfigException> error) {
        if (servers.isEmpty()) {
            return;
        }
        try {
            Class.forName(CLIENT_CLASS, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            List<String> names = servers.stream().map(McpServerConfig::name).toList();
            throw error.apply(listed + " (" + String.join(", ", names) + "), but shelly-mcp is not on the class path; "
                    + "add the dependency dev.shelly:shelly-mcp (the engine depends on it as optional, so that "
                    + "applications without MCP servers do not carry it)");
        }
    }
}
