package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolContext;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A stdio server that crashes while a child it started still holds its stdout open: the crash is
 * noticed from the process itself, not from the end of stdout (which never comes), and closing
 * the client kills the child the server left behind.
 */
@Timeout(120)
class CrashedServerTest {
    private static final String ID = "id=$(printf '%s' \"$line\" | sed -n 's/.*\"id\":\\(\"[^\"]*\"\\|[0-9][0-9]*\\).*/\\1/p'); ";
    /** Starts a long-lived child that inherits stdout and stderr, answers the handshake and the listing, and exits with code 5 on the first call. */
    private static final String SCRIPT = "sleep 600 & "
            + "read -r line; " + ID
            + "printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"protocolVersion\":\"2025-06-18\","
            + "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"crashy\",\"version\":\"1\"}}}\\n' \"$id\"; "
            + "read -r line; read -r line; " + ID
            + "printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"tools\":[{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}}]}}\\n' \"$id\"; "
            + "read -r line; echo 'crashing now' >&2; exit 5";

    private static ToolResult call(McpToolClient client) {
        return client.toolBox().call(new ToolCall("c1", "t", "{}"), ToolContext.of("assistant"));
    }

    @Test
    void aCrashIsNoticedAtOnceForThisAndEveryLaterCallAndCloseKillsTheOrphanedChild() throws Exception {
        McpEndpoint.Stdio crashy = new McpEndpoint.Stdio("sh", List.of("-c", SCRIPT), Map.of(), null, false);
        Duration callTimeout = Duration.ofSeconds(30);
        McpToolClient client = McpToolClient.builder(crashy).name("crashy").callTimeout(callTimeout)
                .shutdownGrace(Duration.ofMillis(500)).connect();
        List<ProcessHandle> children = client.process().orElseThrow().descendants().toList();
        assertThat(children).as("the server's child, holding its stdout").hasSize(1);
        ProcessHandle child = children.getFirst();
        try {
            long start = System.nanoTime();
            ToolResult first = call(client);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(first).isEqualTo(ToolResult.error("c1",
                    "MCP server 'crashy' exited with code 5 while running tool 't'; its last lines on stderr: crashing now"));
            assertThat(took).as("noticed from the process's exit, not at the call timeout").isLessThan(callTimeout.dividedBy(3));
            assertThat(child.isAlive()).as("the child still runs and holds stdout open").isTrue();
            assertThat(client.isOpen()).isFalse();
            start = System.nanoTime();
            assertThat(call(client)).isEqualTo(ToolResult.error("c1",
                    "MCP server 'crashy' exited with code 5, so tool 't' cannot run; its last lines on stderr: crashing now"));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(callTimeout.dividedBy(3));
        } finally {
            client.close();
        }
        // close() returns once the tree is gone; allow init a moment to reap the orphan.
        try {
            child.onExit().get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            child.destroyForcibly();
            throw new AssertionError("the server's child survived close()");
        }
        assertThat(child.isAlive()).isFalse();
    }

    /** A server that answers a call and exits at once: the answer wins over the exit. */
    @org.junit.jupiter.api.RepeatedTest(5)
    void anAnswerWrittenJustBeforeTheExitIsDelivered() {
        String script = "read -r line; " + ID
                + "printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"protocolVersion\":\"2025-06-18\","
                + "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"oneshot\",\"version\":\"1\"}}}\\n' \"$id\"; "
                + "read -r line; read -r line; " + ID
                + "printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"tools\":[{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}}]}}\\n' \"$id\"; "
                + "read -r line; " + ID
                + "printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}\\n' \"$id\"; "
                + "exit 0";
        McpEndpoint.Stdio oneshot = new McpEndpoint.Stdio("sh", List.of("-c", script), Map.of(), null, false);
        try (McpToolClient client = McpToolClient.builder(oneshot).name("oneshot").connect()) {
            assertThat(call(client)).isEqualTo(ToolResult.of("c1", "done"));
        }
    }
}
