package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** An abandoned or interrupted call is cancelled on the server with {@code notifications/cancelled}. */
@Timeout(60)
class CancellationNoticeTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String ID = "id=$(printf '%s' \"$line\" | sed -n 's/.*\"id\":\\(\"[^\"]*\"\\|[0-9][0-9]*\\).*/\\1/p'); ";
    /** Answers the handshake and the listing, then never answers again and appends every line it receives to the file $0. */
    private static final String RECORDER = "read -r line; " + ID
            + "printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"protocolVersion\":\"2025-06-18\","
            + "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"recorder\",\"version\":\"1\"}}}\\n' \"$id\"; "
            + "read -r line; read -r line; " + ID
            + "printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"tools\":[{\"name\":\"slow\",\"inputSchema\":{\"type\":\"object\"}}]}}\\n' \"$id\"; "
            + "while read -r line; do printf '%s\\n' \"$line\" >> \"$0\"; done";

    private static McpToolClient recorder(Path file, Duration callTimeout) {
        McpEndpoint.Stdio endpoint = new McpEndpoint.Stdio("sh", List.of("-c", RECORDER, file.toString()), Map.of(), null, false);
        return McpToolClient.builder(endpoint).name("recorder").callTimeout(callTimeout).shutdownGrace(Duration.ofMillis(300))
                .connect();
    }

    /** The messages the peer received, once the cancellation is among them. */
    private static List<JsonNode> awaitCancellation(Path file) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(file)) {
                List<JsonNode> messages = Files.readAllLines(file).stream().map(JSON::readTree).toList();
                if (messages.stream().anyMatch(m -> m.path("method").asString("").equals("notifications/cancelled"))) {
                    return messages;
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the server received no notifications/cancelled; it received: "
                + (Files.exists(file) ? Files.readString(file) : "nothing"));
    }

    private static void assertCancels(List<JsonNode> received, String reason) {
        assertThat(received).hasSize(2);
        JsonNode call = received.get(0);
        assertThat(call.path("method").asString()).isEqualTo("tools/call");
        assertThat(call.path("params").path("name").asString()).isEqualTo("slow");
        JsonNode cancelled = received.get(1);
        assertThat(cancelled.has("id")).as("a notification has no id").isFalse();
        assertThat(cancelled.path("params").path("requestId")).isEqualTo(call.path("id"));
        assertThat(cancelled.path("params").path("reason").asString()).isEqualTo(reason);
    }

    @Test
    void aCallThatTimesOutIsCancelledOnTheServer(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("received.jsonl");
        try (McpToolClient client = recorder(file, Duration.ofMillis(500))) {
            ToolResult result = client.toolBox().call(new ToolCall("c1", "slow", "{}"), ToolContext.of("assistant"));
            assertThat(result).isEqualTo(ToolResult.error("c1",
                    "MCP server 'recorder' did not answer tool 'slow' within 500 ms; the call was abandoned"));
            assertCancels(awaitCancellation(file), "the client stopped waiting for tool 'slow' after 500 ms");
        }
    }

    @Test
    void anInterruptedCallIsCancelledOnTheServer(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("received.jsonl");
        try (McpToolClient client = recorder(file, Duration.ofSeconds(30))) {
            AtomicReference<ToolResult> result = new AtomicReference<>();
            Thread caller = Thread.ofVirtual().start(() ->
                    result.set(client.toolBox().call(new ToolCall("c1", "slow", "{}"), ToolContext.of("assistant"))));
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!(Files.exists(file) && Files.size(file) > 0) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            caller.interrupt();
            assertThat(caller.join(Duration.ofSeconds(5))).isTrue();
            assertThat(result.get()).isEqualTo(ToolResult.error("c1", "tool 'slow' was cancelled before it finished"));
            assertCancels(awaitCancellation(file), "the caller of tool 'slow' was interrupted");
        }
    }
}
