/**
 * The composition root: config, providers, MCP servers, skills, agents, sessions.
 */
module dev.shelly.engine {
    requires transitive dev.shelly.agent;
    requires transitive dev.shelly.state;
    requires dev.shelly.providers;
    // Only when the application adds shelly-mcp: a config with mcp_servers needs it.
    requires static dev.shelly.mcp;
    requires tools.jackson.dataformat.yaml;
    requires org.snakeyaml.engine;
    requires org.slf4j;

    exports dev.shelly.engine;
    exports dev.shelly.engine.config;
    exports dev.shelly.engine.session;
    exports dev.shelly.engine.spi;

    // config.yaml is bound onto the config records by Jackson.
    opens dev.shelly.engine.config to tools.jackson.databind;

    uses dev.shelly.engine.spi.SharedBackendsProvider;
}
