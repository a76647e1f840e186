package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.RunInterceptor;
import dev.shelly.agent.context.BudgetExceededException;
import dev.shelly.engine.config.ConfigLoader;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.mcp.McpBlock;
import dev.shelly.mcp.McpPrompt;
import dev.shelly.mcp.McpServerCall;
import dev.shelly.mcp.McpToolServer;
import dev.shelly.modeladapter.Usage;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server's sampling request as a model call of the run whose tool call it serves: through the
 * calling agent's model ({@code sampling: true}), the run's interceptors, its usage and cost, and
 * its budget; refused when the configuration does not allow it.
 */
@Timeout(60)
class McpSamplingTest {
    private McpToolServer server;

    @BeforeEach
    void start() {
        ToolBox box = ToolBox.of(Tool.of("capital", "Asks the client's model", "{\"type\":\"object\"}", (in, ctx) -> {
            try {
                return ToolOutput.text("model says: " + McpServerCall.of(ctx).orElseThrow().sample("Answer in one word.",
                        List.of(McpPrompt.Message.user(new McpBlock.Text("Capital of France?"))), 20, Duration.ofSeconds(10)).text());
            } catch (RuntimeException e) {
                return ToolOutput.text("sampling failed: " + e.getMessage());
            }
        }));
        server = McpToolServer.builder(box).build().startHttp(0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private EngineConfig config(String sampling, String context) {
        return ConfigLoader.parse("""
                providers:
                  - name: m
                    kind: openai
                    model: x
                    api_key: k
                mcp_servers:
                  - name: geo
                    url: %s
                %s
                agents:
                  - name: helper
                    provider: m
                    toolboxes: [geo]
                %s
                """.formatted(server.url().orElseThrow(), sampling.indent(4).stripTrailing(), context.indent(4).stripTrailing()),
                "config.yaml", name -> null);
    }

    @Test
    void theCallingAgentsModelAnswersThroughTheRunsInterceptorsAndTheTokensCountInTheSession() {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("capital", "{}").withUsage(Usage.of(100, 10)),
                Step.reply("Paris").withUsage(Usage.of(40, 1)),
                Step.reply(request -> "the server heard: " + request.messages().getLast().toolResults().getFirst().text())
                        .withUsage(Usage.of(200, 20)));
        List<String> calls = new CopyOnWriteArrayList<>();
        RunInterceptor audit = RunInterceptor.beforeModelCall(call -> {
            dev.shelly.chats.Message last = call.request().messages().getLast();
            calls.add(call.iteration() + " " + (last.toolResults().isEmpty() ? last.text() : last.toolResults().getFirst().text()));
            return call.request();
        });
        try (Engine engine = Engine.builder().config(config("sampling: true", "")).completer("m", model).interceptors(audit).build();
                Session session = engine.newSession()) {
            Turn turn = session.send("what is the capital of France?");

            assertThat(turn.text()).isEqualTo("the server heard: model says: Paris");
            assertThat(calls).containsExactly("1 what is the capital of France?", "0 Capital of France?", "2 model says: Paris");
            assertThat(model.requests().get(1).request().messages()).extracting(m -> m.text())
                    .containsExactly("Answer in one word.", "Capital of France?");
            assertThat(turn.usage()).isEqualTo(Usage.of(340, 31));
            assertThat(session.usage()).isEqualTo(Usage.of(340, 31));
            assertThat(engine.usage().total()).isEqualTo(Usage.of(340, 31));
        }
    }

    @Test
    void theSamplingTokensCountAgainstTheRunsBudget() {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("capital", "{}").withUsage(Usage.of(100, 10)),
                Step.reply("Paris").withUsage(Usage.of(900, 100)),
                Step.reply("never asked"));
        try (Engine engine = Engine.builder().config(config("sampling: m", "context:\n  budget: { max_tokens: 500 }"))
                .completer("m", model).build();
                Session session = engine.newSession()) {
            assertThatThrownBy(() -> session.send("what is the capital of France?"))
                    .isInstanceOf(BudgetExceededException.class).hasMessageContaining("1110");
        }
        assertThat(model.requests()).hasSize(2);
    }

    @Test
    void withoutSamplingInTheConfigurationTheServerIsRefused() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("capital", "{}"),
                Step.reply(request -> request.messages().getLast().toolResults().getFirst().text()));
        try (Engine engine = Engine.builder().config(config("", "")).completer("m", model).build();
                Session session = engine.newSession()) {
            assertThat(session.send("capital?").text()).startsWith("sampling failed: ").contains("sampling");
        }
        assertThat(model.requests()).hasSize(2);
    }
}
