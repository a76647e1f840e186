package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.mcp.McpBlock;
import dev.shelly.mcp.McpEndpoint;
import dev.shelly.mcp.McpPrompt;
import dev.shelly.mcp.McpServerCall;
import dev.shelly.mcp.McpToolClient;
import dev.shelly.mcp.McpToolServer;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import dev.shelly.tools.ToolOutput;
import dev.shelly.engine.config.ConfigLoader;
import dev.shelly.engine.config.EngineConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the engine gives MCP servers: sampling requests answered by a configured provider's model,
 * as {@code sampling: <provider>} sets up, and the coding workspaces as roots.
 */
@Timeout(60)
class McpClientSetupTest {

    @Test
    void aSamplingRequestBecomesAModelCallOfTheNamedProvider() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("Paris"));
        ToolBox box = ToolBox.of(Tool.of("capital", "Asks the client's model", "{\"type\":\"object\"}", (in, ctx) -> {
            McpServerCall call = McpServerCall.of(ctx).orElseThrow();
            return ToolOutput.text("model says: " + call.sample("Answer in one word.",
                    List.of(McpPrompt.Message.user(new McpBlock.Text("Capital of France?"))), 20, Duration.ofSeconds(10)).text());
        }));
        try (McpToolServer server = McpToolServer.builder(box).build().startHttp(0);
                McpToolClient client = McpToolClient.builder(McpEndpoint.http(server.url().orElseThrow().toString()))
                        .sampling(McpServers.sampler(request -> model, ModelTable.empty())).connect()) {
            assertThat(client.toolBox().call(new ToolCall("c1", "capital", "{}"), ToolContext.of("a")).text())
                    .isEqualTo("model says: Paris");
        }
        assertThat(model.requests()).singleElement().satisfies(r -> {
            assertThat(r.request().options().maxTokens()).isEqualTo(20);
            assertThat(r.request().messages()).extracting(m -> m.role()).containsExactly(Role.SYSTEM, Role.USER);
            assertThat(r.request().messages().get(1).text()).isEqualTo("Capital of France?");
        });
    }

    @Test
    void theCodingAgentsWorkspacesAreTheServersRoots(@TempDir Path project) throws Exception {
        Files.createDirectories(project.resolve("ws"));
        EngineConfig config = ConfigLoader.parse("""
                providers:
                  - name: m
                    kind: openai
                    model: x
                    api_key: k
                agents:
                  - name: coder
                    coding:
                      workspace: ws
                  - name: reviewer
                    coding:
                      workspace: ./ws/
                  - name: chat
                """, "config.yaml", name -> null);
        assertThat(McpServers.roots(config, project)).containsExactly(project.resolve("ws").toAbsolutePath().toUri());
    }
}
