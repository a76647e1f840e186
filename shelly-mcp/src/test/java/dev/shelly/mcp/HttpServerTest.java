package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The streamable HTTP server's answers to what well-behaved clients never send, and to browsers. */
@Timeout(60)
class HttpServerTest {
    private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
            + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";
    private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private McpToolServer server;
    private URI url;

    @BeforeEach
    void start() {
        server = McpToolServer.builder(DemoTools.box()).allowedOrigins("https://app.example.com").build().startHttp(0);
        url = server.url().orElseThrow();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private HttpResponse<String> post(String body, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String session() throws Exception {
        HttpResponse<String> init = post(INITIALIZE, "Content-Type", "application/json",
                "Accept", "application/json, text/event-stream");
        assertThat(init.statusCode()).isEqualTo(200);
        assertThat(init.headers().firstValue("Content-Type")).hasValue("application/json");
        return init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    }

    @Test
    void aSessionAnswersRequestsOnAnEventStreamAndEndsWithDelete() throws Exception {
        String session = session();
        assertThat(post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", "Content-Type", "application/json",
                "Accept", "application/json, text/event-stream", "Mcp-Session-Id", session).statusCode()).isEqualTo(202);
        HttpResponse<String> list = post(LIST, "Content-Type", "application/json",
                "Accept", "application/json, text/event-stream", "Mcp-Session-Id", session);
        assertThat(list.statusCode()).isEqualTo(200);
        assertThat(list.headers().firstValue("Content-Type")).hasValue("text/event-stream; charset=utf-8");
        assertThat(list.body()).matches("(?s)id: ([0-9a-f-]{36})/0\nretry: 1000\ndata: \n\n"
                        + "id: \\1/1\nevent: message\ndata: \\{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":\\{\"tools\":\\[.*")
                .endsWith("}\n\n");
        HttpResponse<String> delete = http.send(HttpRequest.newBuilder(url).DELETE().header("Mcp-Session-Id", session).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(delete.statusCode()).isEqualTo(200);
        HttpResponse<String> gone = post(LIST, "Content-Type", "application/json",
                "Accept", "application/json, text/event-stream", "Mcp-Session-Id", session);
        assertThat(gone.statusCode()).isEqualTo(404);
        assertThat(gone.body()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":"
                + "\"no MCP session " + session + "; initialize again\"}}");
    }

    @Test
    void malformedRequestsGetTheirStatus() throws Exception {
        String session = session();
        assertThat(post(LIST, "Content-Type", "text/plain").statusCode()).isEqualTo(415);
        HttpResponse<String> noSession = post(LIST, "Content-Type", "application/json", "Accept", "text/event-stream");
        assertThat(noSession.statusCode()).isEqualTo(400);
        assertThat(noSession.body()).contains("the Mcp-Session-Id header is missing; initialize first");
        assertThat(post("{not json", "Content-Type", "application/json").statusCode()).isEqualTo(400);
        assertThat(post(LIST, "Content-Type", "application/json", "Accept", "application/json", "Mcp-Session-Id", session)
                .statusCode()).isEqualTo(406);
        HttpResponse<String> getWithoutSse = http.send(HttpRequest.newBuilder(url).GET().header("Accept", "application/json")
                .header("Mcp-Session-Id", session).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(getWithoutSse.statusCode()).isEqualTo(405);
        HttpResponse<String> put = http.send(HttpRequest.newBuilder(url).PUT(HttpRequest.BodyPublishers.ofString("{}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(put.statusCode()).isEqualTo(405);
        assertThat(put.headers().firstValue("Allow")).hasValue("GET, POST, DELETE");
        HttpResponse<String> elsewhere = http.send(HttpRequest.newBuilder(url.resolve("/other")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(elsewhere.statusCode()).isEqualTo(404);
    }

    @Test
    void anUnsupportedProtocolVersionHeaderGets400() throws Exception {
        String session = session();
        HttpResponse<String> old = post(LIST, "Content-Type", "application/json", "Accept", "application/json, text/event-stream",
                "Mcp-Session-Id", session, "MCP-Protocol-Version", "2024-01-01");
        assertThat(old.statusCode()).isEqualTo(400);
        assertThat(old.body()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":"
                + "\"MCP-Protocol-Version 2024-01-01 is not supported; supported: 2025-03-26, 2025-06-18, 2025-11-25\"}}");
        assertThat(post(LIST, "Content-Type", "application/json", "Accept", "application/json, text/event-stream",
                "Mcp-Session-Id", session, "MCP-Protocol-Version", "2025-06-18").statusCode()).isEqualTo(200);
    }

    @Test
    void batchesAreAnsweredOnlyInSessionsOf2025_03_26() throws Exception {
        String batch = "[" + LIST + ",{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}]";
        String later = session();
        HttpResponse<String> refused = post(batch, "Content-Type", "application/json",
                "Accept", "application/json, text/event-stream", "Mcp-Session-Id", later);
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("JSON-RPC batches are not part of MCP 2025-06-18, which this session negotiated");

        HttpResponse<String> init = post(INITIALIZE.replace("2025-06-18", "2025-03-26"), "Content-Type", "application/json",
                "Accept", "application/json, text/event-stream");
        assertThat(init.body()).contains("\"protocolVersion\":\"2025-03-26\"");
        String old = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
        HttpResponse<String> answered = post(batch, "Content-Type", "application/json",
                "Accept", "application/json, text/event-stream", "Mcp-Session-Id", old);
        assertThat(answered.statusCode()).isEqualTo(200);
        assertThat(answered.body()).contains("data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[")
                .contains("data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}");
        assertThat(post("[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]", "Content-Type", "application/json",
                "Accept", "application/json, text/event-stream", "Mcp-Session-Id", old).statusCode()).isEqualTo(202);
    }

    @Test
    void aStreamTheToolClosesIsResumedWithLastEventId() throws Exception {
        try (McpToolServer conformance = ConformanceServer.build().startHttp(0)) {
            URI at = conformance.url().orElseThrow();
            HttpResponse<String> init = http.send(HttpRequest.newBuilder(at).POST(HttpRequest.BodyPublishers.ofString(INITIALIZE))
                    .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream").build(),
                    HttpResponse.BodyHandlers.ofString());
            String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
            HttpResponse<String> cut = http.send(HttpRequest.newBuilder(at).POST(HttpRequest.BodyPublishers.ofString(
                    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"test_reconnection\","
                            + "\"arguments\":{}}}"))
                    .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                    .header("Mcp-Session-Id", session).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(cut.body()).as("only the priming event before the tool closed the stream")
                    .matches("id: [0-9a-f-]{36}/0\nretry: 1000\ndata: \n\n");
            String primed = cut.body().substring(4, cut.body().indexOf('\n'));
            HttpResponse<String> resumed = http.send(HttpRequest.newBuilder(at).GET().header("Accept", "text/event-stream")
                    .header("Mcp-Session-Id", session).header("Last-Event-ID", primed).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(resumed.statusCode()).isEqualTo(200);
            assertThat(resumed.body()).isEqualTo("id: " + primed.replace("/0", "/1") + "\nevent: message\ndata: "
                    + "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"Reconnection test"
                    + " completed successfully. If you received this, the client properly reconnected after stream closure.\"}],"
                    + "\"isError\":false}}\n\n");
        }
    }

    @Test
    void browsersOfOtherOriginsAndOtherHostNamesAreRefused() throws Exception {
        assertThat(post(INITIALIZE, "Content-Type", "application/json", "Accept", "application/json, text/event-stream",
                "Origin", "https://evil.example").statusCode()).isEqualTo(403);
        assertThat(post(INITIALIZE, "Content-Type", "application/json", "Accept", "application/json, text/event-stream",
                "Origin", "https://app.example.com").statusCode()).isEqualTo(200);
        assertThat(post(INITIALIZE, "Content-Type", "application/json", "Accept", "application/json, text/event-stream",
                "Origin", "http://localhost:5173").statusCode()).isEqualTo(200);
        assertThat(rawStatus("attacker.example:" + url.getPort())).as("DNS rebinding").isEqualTo(421);
        assertThat(rawStatus("localhost:" + url.getPort())).isEqualTo(200);
    }

    /** Sends an initialize with the given Host header, which java.net.http does not let us set. */
    private int rawStatus(String host) throws Exception {
        try (Socket socket = new Socket(url.getHost(), url.getPort())) {
            byte[] body = INITIALIZE.getBytes(StandardCharsets.UTF_8);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n"
                    + "Accept: application/json, text/event-stream\r\nContent-Length: " + body.length
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            InputStream in = socket.getInputStream();
            String status = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
            return Integer.parseInt(status.substring(9, 12));
        }
    }
}
