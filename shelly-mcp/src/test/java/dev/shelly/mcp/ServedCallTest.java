package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolContext;
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
}
