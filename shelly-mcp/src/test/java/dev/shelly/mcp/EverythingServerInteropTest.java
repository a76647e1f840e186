package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Image;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The Java client against {@code @modelcontextprotocol/server-everything}, over stdio and streamable HTTP. */
@Timeout(120)
class EverythingServerInteropTest {
    private static final ToolContext CTX = ToolContext.of("tester");

    private static ToolResult call(ToolBox box, String tool, String arguments) {
        return box.call(new ToolCall("c1", tool, arguments), CTX);
    }

    @Test
    void overStdio() {
        try (McpToolClient client = McpToolClient.builder(McpEndpoint.stdio("node", McpPeers.everything(), "stdio"))
                .name("everything").connect()) {
            assertThat(client.serverName()).isEqualTo("mcp-servers/everything");
            exercise(client);
        }
    }

    @Test
    void overStreamableHttp() throws Exception {
        int port = McpPeers.freePort();
        ProcessBuilder builder = new ProcessBuilder("node", McpPeers.everything(), "streamableHttp")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("PORT", String.valueOf(port));
        Process server = builder.start();
        try {
            McpPeers.awaitListening(port, Duration.ofSeconds(30));
            McpEndpoint.Http endpoint = McpEndpoint.http("http://127.0.0.1:" + port + "/mcp").withHeader("X-Shelly-Test", "1");
            try (McpToolClient client = McpToolClient.builder(endpoint).name("everything").connect()) {
                assertThat(client.process()).isEmpty();
                exercise(client);
            }
        } finally {
            server.destroy();
            server.waitFor();
        }
    }

    /** What both transports must give the same way. */
    private static void exercise(McpToolClient client) {
        ToolBox box = client.toolBox();
        assertThat(box.names()).contains("echo", "get-sum", "get-tiny-image", "get-structured-content",
                "get-resource-reference", "get-resource-links", "trigger-long-running-operation");
        assertThat(box.get("get-sum").orElseThrow().definition().description()).isEqualTo("Returns the sum of two numbers");

        assertThat(call(box, "echo", "{\"message\":\"hi\"}")).isEqualTo(ToolResult.of("c1", "Echo: hi"));
        assertThat(call(box, "get-sum", "{\"a\":2,\"b\":3}")).isEqualTo(ToolResult.of("c1", "The sum of 2 and 3 is 5."));
        assertThat(call(box, "get-sum", "{\"a\":\"x\"}")).as("the server checks arguments and answers isError")
                .isEqualTo(ToolResult.error("c1", "MCP error -32602: Input validation error: Invalid arguments for tool get-sum:"
                        + " Invalid input: expected number, received string at a\n"
                        + "Invalid input: expected number, received undefined at b"));

        ToolResult image = call(box, "get-tiny-image", "{}");
        assertThat(image.isError()).isFalse();
        assertThat(image.content()).hasSize(3);
        assertThat(image.content().get(0)).isEqualTo(new Text("Here's the image you requested:"));
        assertThat(image.content().get(1)).isInstanceOfSatisfying(Image.class, i -> {
            assertThat(i.mediaType()).isEqualTo("image/png");
            assertThat(i.data()).startsWith(0x89, 'P', 'N', 'G');
        });

        assertThat(call(box, "get-structured-content", "{\"location\":\"Chicago\"}")).isEqualTo(ToolResult.of("c1",
                "{\"temperature\":36,\"conditions\":\"Light rain / drizzle\",\"humidity\":82}"));

        ToolResult resource = call(box, "get-resource-reference", "{\"resourceType\":\"Text\",\"resourceId\":1}");
        assertThat(resource.content()).hasSize(3);
        assertThat(((Text) resource.content().get(1)).text())
                .startsWith("[resource demo://resource/dynamic/text/1 (text/plain)]\nResource 1: This is a plaintext resource");

        assertThat(call(box, "get-resource-links", "{\"count\":1}").content()).containsExactly(
                new Text("Here are 1 resource links to resources available in this server:"),
                new Text("[resource link: demo://resource/dynamic/blob/1 \"Blob Resource 1\" (text/plain)"
                        + " - Resource 1: plaintext resource]"));
    }

    @Test
    void aServerThatDoesNotAnswerInTimeGivesAnErrorAndStaysUsable() {
        try (McpToolClient client = McpToolClient.builder(McpEndpoint.stdio("node", McpPeers.everything(), "stdio"))
                .name("everything").callTimeout(Duration.ofSeconds(2)).connect()) {
            long start = System.nanoTime();
            ToolResult slow = call(client.toolBox(), "trigger-long-running-operation", "{\"duration\":10,\"steps\":2}");
            assertThat(slow).isEqualTo(ToolResult.error("c1",
                    "MCP server 'everything' did not answer tool 'trigger-long-running-operation' within 2 s;"
                            + " the call was abandoned"));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(8));
            assertThat(call(client.toolBox(), "echo", "{\"message\":\"still here\"}"))
                    .isEqualTo(ToolResult.of("c1", "Echo: still here"));
        }
    }

    @Test
    void strayLinesOnStdoutAreSkipped() {
        McpEndpoint.Stdio noisy = new McpEndpoint.Stdio("sh",
                List.of("-c", "echo 'Server starting...'; exec node \"$0\" stdio", McpPeers.everything()), Map.of(), null, false);
        try (McpToolClient client = McpToolClient.builder(noisy).name("noisy").connect()) {
            assertThat(call(client.toolBox(), "echo", "{\"message\":\"hi\"}")).isEqualTo(ToolResult.of("c1", "Echo: hi"));
        }
    }

    @Test
    void closingEndsTheServerProcessAndItsChildren() throws Exception {
        McpEndpoint.Stdio wrapped = new McpEndpoint.Stdio("sh",
                List.of("-c", "node \"$0\" stdio", McpPeers.everything()), Map.of(), null, false);
        McpToolClient client = McpToolClient.builder(wrapped).name("wrapped").connect();
        ProcessHandle process = client.process().orElseThrow();
        List<ProcessHandle> children = process.descendants().toList();
        assertThat(children).as("sh runs node as its child").isNotEmpty();
        client.close();
        assertThat(process.isAlive()).isFalse();
        assertThat(children).noneMatch(ProcessHandle::isAlive);
        assertThat(client.toolBox().names()).isEmpty();
        assertThat(client.isOpen()).isFalse();
    }
}
