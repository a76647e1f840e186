package dev.shelly.mcp;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One HTTP exchange and whether its response has started. */
final class Exchange {
    private static final Logger log = LoggerFactory.getLogger(Exchange.class);

    final HttpExchange exchange;
    private final McpJsonMapper json;
    private boolean responded;
    private SseStream sse;

    Exchange(McpJsonMapper json, HttpExchange exchange) {
        this.json = json;
        this.exchange = exchange;
    }

    String header(String name) {
        Headers headers = exchange.getRequestHeaders();
        return headers.getFirst(name);
    }

    boolean accepts(String type) {
        String accept = header("Accept");
        return accept == null || accept.contains(type) || accept.contains("*/*");
    }

    void status(int code) throws IOException {
        responded = true;
        exchange.sendResponseHeaders(code, -1);
    }

    void json(int code, Object body) throws IOException {
        byte[] bytes = json.writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        responded = true;
        exchange.sendResponseHeaders(code, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** Answers with a JSON-RPC error object, unless the response has started already. */
    void error(int status, int code, String message) {
        if (responded) {
            return;
        }
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("code", code);
        error.put("message", message);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("jsonrpc", McpSchema.JSONRPC_VERSION);
        body.put("id", null);
        body.put("error", error);
        try {
            json(status, body);
        } catch (IOException e) {
            log.debug("could not send an HTTP {} answer: {}", status, e.toString());
        }
    }

    SseStream startSse() throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
        exchange.getResponseHeaders().set("Cache-Control", "no-cache");
        responded = true;
        exchange.sendResponseHeaders(200, 0);
        sse = new SseStream(json, exchange);
        return sse;
    }

    void close() {
        if (sse != null) {
            sse.close();
        }
        exchange.close();
    }
}
