package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.engine.config.ConfigException;
import dev.shelly.modeladapter.Usage;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The engine wired to real peers: an HTTP provider and an MCP server subprocess. */
class EngineWiringTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static String java() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    @Test
    void aConfiguredMcpServerIsStartedUsedAndEndedWithTheEngine(@TempDir Path tmp) throws Exception {
        Path shelly = Files.createDirectories(tmp.resolve(".shelly"));
        Files.writeString(shelly.resolve("config.yaml"), """
                providers: [{ name: m, kind: openai, model: x, api_key: k }]
                mcp_servers:
                  - name: demo
                    command: "${JAVA}"
                    args: ["-cp", "${CP}", "dev.shelly.engine.PidMcpServer"]
                agents:
                  - name: ops
                    toolboxes: [{ name: demo, tools: [pid] }]
                """);
        Map<String, String> env = Map.of("JAVA", java(), "CP", System.getProperty("java.class.path"));
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("pid", "{}"),
                Step.reply(chat -> chat.last().orElseThrow().toolResults().getFirst().text()));
        long pid;
        try (Engine engine = Engine.builder().dir(new ShellyDir(shelly)).environment(env::get).completer("m", model).build()) {
            Message answer = engine.newSession().send("which process serves you?").reply();
            pid = Long.parseLong(answer.text());
            assertThat(ProcessHandle.of(pid)).hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());
            assertThat(model.requests().getFirst().toolNames()).containsExactly("pid");
        }
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                .as("closing the engine ends the MCP subprocess").isFalse();
    }

    @Test
    void anMcpServerThatDoesNotStartIsAConfigError(@TempDir Path tmp) throws Exception {
        Path shelly = Files.createDirectories(tmp.resolve(".shelly"));
        Files.writeString(shelly.resolve("config.yaml"), """
                providers: [{ name: m, kind: openai, model: x, api_key: k }]
                mcp_servers:
                  - name: broken
                    command: shelly-no-such-program-here
                agents: [{ name: a, toolboxes: [broken] }]
                """);
        assertThatThrownBy(() -> Engine.builder().dir(new ShellyDir(shelly)).completer("m", ScriptedCompleter.of()).build())
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(shelly.resolve("config.yaml") + ":3: mcp_servers[0]: MCP server 'broken' did not start: ");
    }

    @Test
    void aConfiguredProviderSpeaksToItsEndpointWithTheKeyFromTheEnvironment(@TempDir Path tmp) throws Exception {
        try (MockWebServer server = new MockWebServer()) {
            server.start();
            server.enqueue(new MockResponse.Builder()
                    .addHeader("Content-Type", "application/json")
                    .body("""
                            {"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-test",
                             "choices":[{"index":0,"message":{"role":"assistant","content":"Paris."},"finish_reason":"stop"}],
                             "usage":{"prompt_tokens":21,"completion_tokens":2,"total_tokens":23}}
                            """)
                    .build());
            Path shelly = Files.createDirectories(tmp.resolve(".shelly"));
            Files.writeString(shelly.resolve("config.yaml"), """
                    providers:
                      - name: gpt
                        kind: openai
                        model: gpt-test
                        base_url: "${BASE}"
                        api_key: "${OPENAI_KEY}"
                        max_tokens: 256
                        temperature: 0
                        retry: { max_attempts: 1 }
                    agents:
                      - name: geo
                        description: Knows capitals
                    """);
            Map<String, String> env = Map.of("BASE", server.url("/v1").toString(), "OPENAI_KEY", "sk-test-123");
            try (Engine engine = Engine.builder().dir(new ShellyDir(shelly)).environment(env::get).build()) {
                assertThat(engine.newSession().send("Capital of France?").text()).isEqualTo("Paris.");
                assertThat(engine.usage().total()).isEqualTo(new Usage(21, 2, 0, 0));
            }
            RecordedRequest request = server.takeRequest();
            assertThat(request.getTarget()).isEqualTo("/v1/chat/completions");
            assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer sk-test-123");
            JsonNode body = JSON.readTree(request.getBody().utf8());
            assertThat(body.get("model").asString()).isEqualTo("gpt-test");
            assertThat(body.get("max_completion_tokens").asInt()).isEqualTo(256);
            assertThat(body.get("temperature").asDouble()).isEqualTo(0.0);
            assertThat(body.get("messages").toString()).isEqualTo(
                    "[{\"role\":\"system\",\"content\":\"You are geo. Knows capitals\"},"
                            + "{\"role\":\"user\",\"content\":\"Capital of France?\"}]");
            assertThat(body.has("tools")).as("alone in its registry, the agent is offered no delegation").isFalse();
        }
    }

    @Test
    void aProvidersTimeoutIsTheDeadlineOfEachCall(@TempDir Path tmp) throws Exception {
        try (MockWebServer server = new MockWebServer()) {
            server.start();
            server.enqueue(new MockResponse.Builder().onResponseStart(mockwebserver3.SocketEffect.Stall.INSTANCE).build());
            Path shelly = Files.createDirectories(tmp.resolve(".shelly"));
            Files.writeString(shelly.resolve("config.yaml"), """
                    providers:
                      - name: gpt
                        kind: openai
                        model: gpt-test
                        base_url: "${BASE}"
                        api_key: sk-test-123
                        timeout: 1s
                    agents:
                      - name: geo
                        description: Knows capitals
                    """);
            Map<String, String> env = Map.of("BASE", server.url("/v1").toString());
            try (Engine engine = Engine.builder().dir(new ShellyDir(shelly)).environment(env::get).build()) {
                assertThatThrownBy(() -> engine.newSession().send("Capital of France?"))
                        .hasStackTraceContaining("gpt: timeout: no complete reply within the call deadline of 1 s");
            }
        }
    }

    @Test
    void aProviderHeaderWithAControlCharacterIsAConfigErrorThatDoesNotQuoteTheValue(@TempDir Path tmp) throws Exception {
        Path shelly = Files.createDirectories(tmp.resolve(".shelly"));
        Files.writeString(shelly.resolve("config.yaml"), """
                providers:
                  - name: gpt
                    kind: openai
                    model: gpt-test
                    api_key: sk-test-123
                    headers: { X-Org-Token: "org-secret\\nX-Injected: 1" }
                agents:
                  - name: geo
                    description: Knows capitals
                """);
        assertThatThrownBy(() -> Engine.builder().dir(new ShellyDir(shelly)).environment(name -> null).build())
                .isInstanceOf(ConfigException.class)
                .hasMessage(shelly.resolve("config.yaml") + ":6: providers[0].headers.X-Org-Token: gpt: the value of header"
                        + " X-Org-Token has a control character at index 10 (a stray newline?); the value is not shown")
                .hasMessageNotContaining("org-secret");
    }

    @Test
    void eventsReachSubscribersWhileTheTurnRuns(@TempDir Path tmp) throws Exception {
        var config = dev.shelly.engine.config.EngineConfig.builder()
                .provider(dev.shelly.engine.config.ProviderConfig.builder("m", "openai", "x")
                        .apiKey("k").build())
                .agent(dev.shelly.engine.config.AgentConfig.builder("talker").build())
                .build();
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("streamed words arrive one by one"));
        StringBuilder streamed = new StringBuilder();
        try (Engine engine = Engine.builder().config(config).completer("m", model).build()) {
            var done = new java.util.concurrent.CountDownLatch(1);
            engine.events().subscribe(e -> {
                if (e instanceof dev.shelly.agent.AgentEvent.StreamDelta d
                        && d.delta() instanceof dev.shelly.modeladapter.Delta.TextDelta t) {
                    streamed.append(t.text());
                }
                if (e instanceof dev.shelly.agent.AgentEvent.AgentFinished) {
                    done.countDown();
                }
            });
            engine.newSession().send("talk");
            assertThat(done.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        }
        assertThat(streamed.toString()).isEqualTo("streamed words arrive one by one");
    }
}
