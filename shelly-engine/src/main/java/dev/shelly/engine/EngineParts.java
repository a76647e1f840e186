package dev.shelly.engine;

import dev.shelly.agent.AgentEvent;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.modeladapter.UsageTracker;
import dev.shelly.state.Store;
import dev.shelly.state.tasks.TaskBoard;
import dev.shelly.storage.spi.SharedBackends;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a built engine is made of; everything it opened is closed with it.
 *
 * @param config the checked configuration
 * @param dir the {@code .shelly/} folder, or null
 * @param events the bus
 * @param usage the tracker
 * @param store the blackboard
 * @param tasks the task board
 * @param shared the backends of a {@code redis:} section, or null
 * @param mcpClients the connected MCP servers
 * @param telemetry the engine's telemetry
 * @param human the policies, permission store and decision timer
 * @param agents builds the configured agents
 * @param sessions the open and saved sessions
 * @param warnings what the build found wrong without failing
 */
record EngineParts(EngineConfig config, ShellyDir dir, EventBus<AgentEvent> events, UsageTracker usage, Store store,
        TaskBoard tasks, SharedBackends shared, List<McpConnection> mcpClients, EngineTelemetry telemetry,
        HumanInTheLoop human, AgentFactory agents, SessionManager sessions, List<String> warnings) {
    private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

    /** Closes the sessions (cancelling their turns), the MCP clients, the bus, the shared backends, the telemetry. */
    void close() {
        sessions().closeAll();
        for (McpConnection client : mcpClients()) {
            try {
                client.close().run();
            } catch (RuntimeException e) {
                LOG.warn("closing MCP server '{}' failed: {}", client.name(), e.toString());
            }
        }
        human().close();
        events().close();
        if (shared() != null) {
            try {
                shared().close();
            } catch (RuntimeException e) {
                LOG.warn("closing the shared backends failed: {}", e.toString());
            }
        }
        telemetry().close();
    }
}
