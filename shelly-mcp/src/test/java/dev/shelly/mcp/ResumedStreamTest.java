package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import dev.shelly.tools.ToolOutput;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A request whose event stream the server closes before the response is resumed, so the call is not lost. */
@Timeout(60)
class ResumedStreamTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void aToolCallWhoseStreamMcpToolServerClosesMidCallStillGetsItsResult() {
        ToolBox box = new ToolBox();
        box.register(Tool.of("slow", "Closes its stream, then answers", "{\"type\":\"object\"}", (in, ctx) -> {
            McpServerCall call = McpServerCall.of(ctx).orElseThrow();
            call.progress(1, 2.0, "before the stream closes");
            call.closeStream();
            Thread.sleep(300);
            call.progress(2, 2.0, "after");
            return ToolOutput.text("done after the stream was closed");
        }));
        List<McpToolClient.Progress> progress = new CopyOnWriteArrayList<>();
        try (McpToolServer server = McpToolServer.builder(box).build().startHttp(0);
                McpToolClient client = McpToolClient.builder(McpEndpoint.http(server.url().orElseThrow().toString()))
                        .callTimeout(Duration.ofSeconds(20)).onProgress(progress::add).connect()) {
            long start = System.nanoTime();
            ToolResult result = client.toolBox().call(new ToolCall("c1", "slow", "{}"), ToolContext.of("t"));
            assertThat(result.isError()).as(result.text()).isFalse();
            assertThat(result.text()).isEqualTo("done after the stream was closed");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("resumed after the server's retry interval, 1 s")
                    .isBetween(Duration.ofMillis(900), Duration.ofSeconds(10));
            assertThat(progress).extracting(McpToolClient.Progress::message).containsExactly("before the stream closes", "after");
            // the next call on the same session is not disturbed
            assertThat(client.toolBox().call(new ToolCall("c2", "slow", "{}"), ToolContext.of("t")).text())
                    .isEqualTo("done after the stream was closed");
        }
    }

    /**
     * A server written here, as small as the spec allows: it answers the tools/call POST with a
     * priming event ({@code retry: 300}), an event that is cut off in the middle, and closes;
     * the GET that resumes must name the priming event and come after the retry interval.
     */
    @Test
    void theResumingGetNamesTheLastWholeEventAndWaitsForTheRetryInterval() throws Exception {
        List<String> lastEventIds = new CopyOnWriteArrayList<>();
        long[] closedAt = new long[1];
        long[] resumedAt = new long[1];
        Object[] pendingId = new Object[1];
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        http.createContext("/mcp", exchange -> {
            try (exchange) {
                switch (exchange.getRequestMethod()) {
                    case "POST" -> post(exchange, pendingId, closedAt);
                    case "GET" -> {
                        String last = exchange.getRequestHeaders().getFirst("Last-Event-ID");
                        if (last == null) {
                            exchange.sendResponseHeaders(405, -1);   // no standalone stream here
                            return;
                        }
                        resumedAt[0] = System.nanoTime();
                        lastEventIds.add(last);
                        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
                        exchange.sendResponseHeaders(200, 0);
                        String answer = "{\"jsonrpc\":\"2.0\",\"id\":" + JSON.writeValueAsString(pendingId[0])
                                + ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"resumed\"}]}}";
                        write(exchange.getResponseBody(), "id: call/2\nevent: message\ndata: " + answer + "\n\n");
                        Thread.sleep(5_000);   // the stream stays open: the client lets go once it has the response
                    }
                    default -> exchange.sendResponseHeaders(202, -1);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        http.start();
        try (McpToolClient client = McpToolClient.builder(McpEndpoint.http("http://127.0.0.1:" + http.getAddress().getPort() + "/mcp"))
                .callTimeout(Duration.ofSeconds(10)).connect()) {
            ToolResult result = client.toolBox().call(new ToolCall("c1", "echo", "{}"), ToolContext.of("t"));
            assertThat(result.text()).isEqualTo("resumed");
            assertThat(lastEventIds).containsExactly("call/0");
            assertThat(Duration.ofNanos(resumedAt[0] - closedAt[0])).isBetween(Duration.ofMillis(250), Duration.ofMillis(2_000));
        } finally {
            http.stop(0);
        }
    }

    private static void post(HttpExchange exchange, Object[] pendingId, long[] closedAt) throws IOException {
        JsonNode request = JSON.readTree(exchange.getRequestBody());
        String method = request.path("method").asString("");
        if (!request.has("id")) {
            exchange.sendResponseHeaders(202, -1);
            return;
        }
        exchange.getResponseHeaders().set("Mcp-Session-Id", "s-1");
        if (method.equals("tools/call")) {
            pendingId[0] = JSON.treeToValue(request.get("id"), Object.class);
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            write(exchange.getResponseBody(), "id: call/0\nretry: 300\ndata: \n\nid: call/1\nevent: message\ndata: {\"jsonrpc\":");
            closedAt[0] = System.nanoTime();
            return;
        }
        String result = switch (method) {
            case "initialize" -> "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},"
                    + "\"serverInfo\":{\"name\":\"cut-off\",\"version\":\"1\"}}";
            case "tools/list" -> "{\"tools\":[{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"}}]}";
            default -> "{}";
        };
        byte[] body = ("{\"jsonrpc\":\"2.0\",\"id\":" + request.get("id") + ",\"result\":" + result + "}")
                .getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
    }

    private static void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
