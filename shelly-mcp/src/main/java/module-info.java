/**
 * MCP client and server. The MCP SDK and Reactor are used here but shown in no signature.
 */
// The MCP SDK jar has no module descriptor yet: its automatic module name is stable (Automatic-Module-Name).
@SuppressWarnings("requires-automatic")
module dev.shelly.mcp {
    requires transitive dev.shelly.tools;
    requires io.modelcontextprotocol.sdk.mcp;
    requires reactor.core;
    requires org.reactivestreams;
    requires java.net.http;
    requires jdk.httpserver;
    requires org.slf4j;
    requires com.fasterxml.jackson.annotation;

    exports dev.shelly.mcp;
}
