package dev.shelly.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerTransport;
import io.modelcontextprotocol.spec.McpTransportException;
import java.io.IOException;
import reactor.core.publisher.Mono;

/** A server transport that sends JSON-RPC messages as server-sent events, with the server's JSON mapper. */
interface EventStream extends McpStreamableServerTransport {

    /** The mapper messages are written and read with. */
    McpJsonMapper json();

    @Override
    default Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        return sendMessage(message, null);
    }

    @Override
    default <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return json().convertValue(data, typeRef);
    }

    /** A message as JSON text, for an event's data. */
    default String encode(McpSchema.JSONRPCMessage message) {
        try {
            return json().writeValueAsString(message);
        } catch (IOException e) {
            throw new McpTransportException("cannot encode an MCP message: " + e.getMessage(), e);
        }
    }
}
