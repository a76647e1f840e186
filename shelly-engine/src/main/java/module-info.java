/**
 * The composition root: config, providers (found as plug-ins), MCP servers, skills, agents, sessions.
 */
module dev.shelly.engine {
    requires transitive dev.shelly.agent;
    requires transitive dev.shelly.state;
    // Sessions are kept in a store of the storage module; Engine.Builder takes one.
    requires transitive dev.shelly.storage;
    // Only when the application adds shelly-mcp: a config with mcp_servers needs it.
    requires static dev.shelly.mcp;
    // Only when the application adds shelly-otel: tracing from code or from the telemetry: section.
    requires static dev.shelly.otel;
    // Only when the application adds shelly-coding: an agent with a coding: section needs it.
    requires static dev.shelly.coding;
    requires tools.jackson.dataformat.yaml;
    requires org.snakeyaml.engine;
    requires org.slf4j;

    exports dev.shelly.engine;
    exports dev.shelly.engine.config;

    // config.yaml is bound onto the config records by Jackson.
    opens dev.shelly.engine.config to tools.jackson.databind;

    // Provider kinds (shelly-providers' and a user's own) and shared backends (shelly-redis).
    uses dev.shelly.modeladapter.spi.CompleterFactory;
    uses dev.shelly.storage.spi.SharedBackendsProvider;
    // Modules started by a section of the configuration (shelly-console for console:).
    uses dev.shelly.engine.Engine.Extension;
}
