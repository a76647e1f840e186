package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Image;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolContext;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server's resources and prompts through {@link McpToolClient}: read in code, and as the
 * opt-in tools an agent gets; against our conformance server and the npm reference server.
 */
@Timeout(60)
class ServerContextTest {

    @Test
    void resourcesAndPromptsAreReadInCodeAndThroughOptInTools() {
        try (McpToolServer server = ConformanceServer.build().startHttp(0);
                McpToolClient client = McpToolClient.builder(McpEndpoint.http(server.url().orElseThrow().toString()))
                        .name("conf").toolNamePrefix("c_").resourceTools().promptTools().connect()) {
            assertThat(client.listResources()).extracting(McpBlock.Link::uri).containsExactlyInAnyOrder("test://static-text",
                    "test://static-binary", "test://watched-resource", "test://template/{id}/data");
            assertThat(client.readResource("test://template/42/data")).containsExactly(McpResource.Contents.text(
                    "test://template/42/data", "application/json",
                    "{\"id\":\"42\",\"templateTest\":true,\"data\":\"Data for ID: 42\"}"));
            assertThat(client.prompt("test_prompt_with_arguments", Map.of("arg1", "a", "arg2", "b")))
                    .containsExactly(McpPrompt.Message.user(new McpBlock.Text("Prompt with arguments: arg1='a', arg2='b'")));
            assertThat(client.listPrompts()).extracting(McpPrompt::name).containsExactlyInAnyOrder("test_simple_prompt",
                    "test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image");

            assertThat(client.toolBox().definitions()).extracting(d -> d.name())
                    .contains("c_list_resources", "c_read_resource", "c_get_prompt");
            assertThat(call(client, "c_list_resources", "{}").text().lines()).contains(
                    "test://static-text - static-text (text/plain): A static text resource for testing",
                    "test://template/{id}/data - template (application/json): A resource template with parameter substitution");
            assertThat(call(client, "c_read_resource", "{\"uri\":\"test://static-text\"}").text())
                    .isEqualTo("[resource test://static-text (text/plain)]\nThis is the content of the static text resource.");
            assertThat(call(client, "c_read_resource", "{\"uri\":\"test://static-binary\"}").content())
                    .singleElement().isInstanceOf(Image.class);
            assertThat(call(client, "c_read_resource", "{\"uri\":\"test://nothing\"}").isError()).isTrue();
            assertThat(client.toolBox().definitions().stream().filter(d -> d.name().equals("c_get_prompt")).findFirst()
                    .orElseThrow().description()).contains("- test_prompt_with_arguments: A prompt with required arguments"
                            + " (arguments: arg1, arg2)");
            assertThat(call(client, "c_get_prompt", "{\"name\":\"test_prompt_with_arguments\",\"arguments\":"
                    + "{\"arg1\":\"x\",\"arg2\":\"y\"}}").text()).isEqualTo("Prompt with arguments: arg1='x', arg2='y'");
            assertThat(call(client, "c_get_prompt", "{\"name\":\"test_prompt_with_arguments\"}").text())
                    .contains("prompt 'test_prompt_with_arguments' needs the argument 'arg1'");
        }
    }

    @Test
    void withoutOptInAnAgentGetsOnlyTheServersTools() {
        try (McpToolClient client = McpToolClient.builder(McpEndpoint.stdio("node", McpPeers.everything(), "stdio"))
                .name("everything").connect()) {
            assertThat(client.toolBox().definitions()).extracting(d -> d.name())
                    .doesNotContain("list_resources", "read_resource", "get_prompt");
            assertThat(client.listResources()).isNotEmpty();
            List<McpPrompt> prompts = client.listPrompts();
            assertThat(prompts).isNotEmpty();
        }
    }

    private static ToolResult call(McpToolClient client, String tool, String arguments) {
        return client.toolBox().call(new ToolCall("c", tool, arguments), ToolContext.of("t"));
    }
}
