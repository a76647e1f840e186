package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolContext;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What a served tool sends through {@link McpServerCall}, as the Java SDK client behind {@link McpToolClient} sees it. */
@Timeout(60)
class ServedCallTest {

    @Test
    void aReplyInMcpBlocksReplacesTheToolResult() {
        try (McpToolServer server = ConformanceServer.build().startHttp(0);
                McpToolClient client = McpToolClient.connect(McpEndpoint.http(server.url().orElseThrow().toString()))) {
            ToolResult audio = client.toolBox().call(new ToolCall("1", "test_audio_content", "{}"), ToolContext.of("t"));
            assertThat(audio.text()).isEqualTo("[audio (audio/wav), 44 bytes, not shown]");
            ToolResult mixed = client.toolBox().call(new ToolCall("2", "test_multiple_content_types", "{}"), ToolContext.of("t"));
            assertThat(mixed.content()).hasSize(3);
            assertThat(mixed.content().get(1)).isInstanceOf(dev.shelly.chats.Image.class);
            assertThat(mixed.text()).isEqualTo("Multiple content types test:[resource test://mixed-content-resource"
                    + " (application/json)]\n{\"test\":\"data\",\"value\":123}");
        }
    }

    @Test
    void elicitationSamplingAndProgressReachTheClientsHandlers() {
        List<McpElicitation> asked = new CopyOnWriteArrayList<>();
        List<McpToolClient.Sampling> sampled = new CopyOnWriteArrayList<>();
        List<McpToolClient.Progress> progress = new CopyOnWriteArrayList<>();
        try (McpToolServer server = ConformanceServer.build().startHttp(0);
                McpToolClient client = McpToolClient.builder(McpEndpoint.http(server.url().orElseThrow().toString()))
                        .name("conf")
                        .elicitation(request -> {
                            asked.add(request);
                            return McpElicitation.Answer.accept(Map.of("name", "Ada"));
                        })
                        .sampling(request -> {
                            sampled.add(request);
                            return new McpToolClient.Sampling.Reply("four", "scripted", null);
                        })
                        .onProgress(progress::add)
                        .connect()) {
            assertThat(call(client, "test_elicitation_sep1034_defaults", "{}")).isEqualTo("Elicitation completed: action=accept,"
                    + " content={\"name\":\"Ada\",\"age\":30,\"score\":95.5,\"status\":\"active\",\"verified\":true}");
            assertThat(asked).singleElement().satisfies(r -> {
                assertThat(r.server()).isEqualTo("conf");
                assertThat(r.caller()).as("the context of the call that was in flight").isEqualTo(ToolContext.of("t"));
                assertThat(r.message()).isEqualTo("Please review and update the form fields with defaults");
            });
            assertThat(call(client, "test_elicitation", "{\"message\":\"Your name?\"}"))
                    .startsWith("tool 'test_elicitation' failed: the client of MCP server 'shelly-conformance-server'"
                            + " refused elicitation for tool 'test_elicitation': ")
                    .contains("the answer does not fit the requested schema: response is required; name is not asked for");
            assertThat(call(client, "test_sampling", "{\"prompt\":\"2+2?\"}")).isEqualTo("LLM response: four");
            assertThat(sampled).singleElement().satisfies(r -> {
                assertThat(r.maxTokens()).isEqualTo(100);
                assertThat(r.messages()).containsExactly(McpPrompt.Message.user(new McpBlock.Text("2+2?")));
            });
            assertThat(call(client, "test_tool_with_progress", "{}")).isEqualTo("progress reported");
            assertThat(progress).containsExactly(
                    new McpToolClient.Progress("conf", "test_tool_with_progress", 0, 100.0, "Completed step 0 of 100",
                            ToolContext.of("t")),
                    new McpToolClient.Progress("conf", "test_tool_with_progress", 50, 100.0, "Completed step 50 of 100",
                            ToolContext.of("t")),
                    new McpToolClient.Progress("conf", "test_tool_with_progress", 100, 100.0, "Completed step 100 of 100",
                            ToolContext.of("t")));
        }
    }

    @Test
    void aClientWithoutHandlersOffersNeitherSamplingNorElicitation() {
        try (McpToolServer server = ConformanceServer.build().startHttp(0);
                McpToolClient client = McpToolClient.connect(McpEndpoint.http(server.url().orElseThrow().toString()))) {
            assertThat(call(client, "test_sampling", "{\"prompt\":\"hi\"}")).isEqualTo("tool 'test_sampling' failed:"
                    + " the client of MCP server 'shelly-conformance-server' does not offer sampling (tool 'test_sampling')");
            assertThat(call(client, "test_elicitation", "{\"message\":\"hi\"}")).isEqualTo("tool 'test_elicitation' failed:"
                    + " the client of MCP server 'shelly-conformance-server' does not offer elicitation (tool 'test_elicitation')");
        }
    }

    private static String call(McpToolClient client, String tool, String arguments) {
        return client.toolBox().call(new ToolCall("c", tool, arguments), ToolContext.of("t")).text();
    }
}
