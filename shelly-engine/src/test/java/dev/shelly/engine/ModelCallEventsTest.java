package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.agent.AgentEvent;
import dev.shelly.engine.config.ConfigLoader;
import dev.shelly.testing.logs.LogCapture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;

/**
 * A provider's retries and fallbacks reach the engine's bus as events of the run whose model call
 * they belong to, so a view of the run tree can show them.
 */
class ModelCallEventsTest {
    private static final String OPENAI_REPLY = """
            {"id":"chatcmpl-1","object":"chat.completion","model":"gpt-5-mini","choices":[{"index":0,
             "message":{"role":"assistant","content":"Paris."},"finish_reason":"stop"}],
             "usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}
            """;
    private static final String OVERLOADED = "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
            + "\"message\":\"Overloaded\"}}";

    private static MockResponse json(int status, String body) {
        return new MockResponse.Builder().code(status).addHeader("Content-Type", "application/json").body(body).build();
    }

    @Test
    @SuppressWarnings("try") // the log capture is held to keep the retry's log line out of the output, not used
    void aRetryAndAFallbackAreEventsOfTheRunWhoseCallTheyAre() throws Exception {
        try (MockWebServer primary = new MockWebServer(); MockWebServer secondary = new MockWebServer()) {
            primary.start();
            secondary.start();
            primary.enqueue(json(529, OVERLOADED));
            primary.enqueue(json(529, OVERLOADED));
            secondary.enqueue(json(200, OPENAI_REPLY));
            String yaml = """
                    providers:
                      - name: claude
                        kind: anthropic
                        model: claude-sonnet-4-5
                        base_url: %s
                        retry: { max_attempts: 2, initial_delay: 10ms, max_delay: 20ms }
                        fallback: [gpt]
                      - name: gpt
                        kind: openai
                        model: gpt-5-mini
                        base_url: %s
                        retry: { max_attempts: 1 }
                    agents: [{ name: a, provider: claude }]
                    """.formatted(primary.url("/").toString(), secondary.url("/v1").toString());
            Map<String, String> env = Map.of("ANTHROPIC_API_KEY", "sk-ant-0123456789", "OPENAI_API_KEY", "sk-0123456789");
            List<AgentEvent> events = new CopyOnWriteArrayList<>();
            String sessionId;
            try (LogCapture logs = LogCapture.start();
                    Engine engine = Engine.builder().config(ConfigLoader.parse(yaml, "config.yaml", env::get))
                            .environment(env::get).build()) {
                engine.events().subscribe(events::add);
                try (Session session = engine.newSession()) {
                    sessionId = session.id();
                    assertThat(session.send("Capital of France?").text()).isEqualTo("Paris.");
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (events.stream().noneMatch(e -> e instanceof AgentEvent.AgentFinished) && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
            }
            String runId = events.stream().filter(e -> e instanceof AgentEvent.AgentStarted).findFirst().orElseThrow()
                    .source().runId();
            AgentEvent.ModelRetried retried = events.stream().filter(e -> e instanceof AgentEvent.ModelRetried)
                    .map(AgentEvent.ModelRetried.class::cast).findFirst().orElseThrow();
            assertThat(retried.source().runId()).isEqualTo(runId);
            assertThat(retried.source().sessionId()).isEqualTo(sessionId);
            assertThat(retried.source().agent()).isEqualTo("a");
            assertThat(retried.attempt()).isEqualTo(1);
            assertThat(retried.maxAttempts()).isEqualTo(2);
            assertThat(retried.error()).contains("overloaded");
            assertThat(retried.delay()).isLessThanOrEqualTo(Duration.ofMillis(20));
            AgentEvent.ModelFellBack fellBack = events.stream().filter(e -> e instanceof AgentEvent.ModelFellBack)
                    .map(AgentEvent.ModelFellBack.class::cast).findFirst().orElseThrow();
            assertThat(fellBack.source().runId()).isEqualTo(runId);
            assertThat(fellBack.from()).isEqualTo("claude");
            assertThat(fellBack.to()).isEqualTo("gpt");
            assertThat(fellBack.reason()).isEqualTo("overloaded");
            assertThat(events).filteredOn(e -> e instanceof AgentEvent.ModelRetried).hasSize(1);
        }
    }
}
