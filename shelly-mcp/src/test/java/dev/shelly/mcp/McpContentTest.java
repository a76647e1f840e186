package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Image;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolOutput;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class McpContentTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String DOT = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

    private static McpSchema.CallToolResult result(List<McpSchema.Content> content, Boolean isError, Object structured) {
        return new McpSchema.CallToolResult(content, isError, structured, null);
    }

    @Test
    void everyKindOfContentBecomesAPart() {
        ToolOutput output = McpContent.toOutput(result(List.of(
                McpSchema.TextContent.builder("hello").build(),
                McpSchema.ImageContent.builder(DOT, "image/png").build(),
                McpSchema.AudioContent.builder("AAAA", "audio/wav").build(),
                McpSchema.EmbeddedResource.builder(
                        McpSchema.TextResourceContents.builder("file:///a.txt", "alpha").mimeType("text/plain").build()).build(),
                McpSchema.EmbeddedResource.builder(
                        McpSchema.BlobResourceContents.builder("file:///dot.png", DOT).mimeType("image/png").build()).build(),
                McpSchema.EmbeddedResource.builder(McpSchema.BlobResourceContents.builder("file:///a.bin", "AAAA").build()).build(),
                McpSchema.ResourceLink.builder().name("readme").uri("file:///README.md").mimeType("text/markdown").build()),
                null, null), JSON);
        assertThat(output.isError()).as("a missing isError means success").isFalse();
        assertThat(output.content()).containsExactly(
                new Text("hello"),
                Image.ofBase64(DOT, "image/png"),
                new Text("[audio (audio/wav), 3 bytes, not shown]"),
                new Text("[resource file:///a.txt (text/plain)]\nalpha"),
                Image.ofBase64(DOT, "image/png"),
                new Text("[resource file:///a.bin, 3 bytes of binary data, not shown]"),
                new Text("[resource link: file:///README.md \"readme\" (text/markdown)]"));
        assertThat(McpContent.toOutput(result(List.of(McpSchema.ImageContent.builder("%%%", "image/png").build()), true, null), JSON))
                .isEqualTo(new ToolOutput(List.of(new Text("[image (image/png) that could not be decoded:"
                        + " Image.data is not valid base64: Illegal base64 character 25]")), true));
    }

    @Test
    void structuredContentIsUsedOnlyWhenThereIsNoText() {
        Map<String, Object> structured = Map.of("temperature", 21);
        assertThat(McpContent.toOutput(result(List.of(), false, structured), JSON).content())
                .containsExactly(new Text("{\"temperature\":21}"));
        assertThat(McpContent.toOutput(result(List.of(McpSchema.TextContent.builder("21 degrees").build()), false, structured), JSON).content())
                .containsExactly(new Text("21 degrees"));
    }

    @Test
    void shellyResultsBecomeMcpResults() {
        ToolResult result = new ToolResult("c1", List.of(new Text("see"), Image.ofBase64(DOT, "image/png"),
                Image.ofUrl("https://example.com/a.png")), true);
        McpSchema.CallToolResult mcp = McpContent.toMcp(result);
        assertThat(mcp.isError()).isTrue();
        assertThat(mcp.content()).containsExactly(
                McpSchema.TextContent.builder("see").build(),
                McpSchema.ImageContent.builder(DOT, "image/png").build(),
                McpSchema.ResourceLink.builder().name("image").uri("https://example.com/a.png").build());
    }
}
