package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.ConfigLoader;
import dev.shelly.modeladapter.FallbackCompleter.FallbackEvent;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.Usage;
import dev.shelly.testing.logs.LogCapture;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;

/**
 * A provider's {@code fallback:} from config.yaml: real provider kinds against two local servers,
 * the primary failing, the reply and the usage from the fallback, each switch an event and a WARN
 * line without a key; and the config errors of a fallback list, at their file and line.
 */
class ProviderFallbackTest {
    private static final String ANTHROPIC_KEY = "sk-ant-primary-key-0123456789";
    private static final String OPENAI_KEY = "sk-openai-fallback-key-0123456789";

    private static final String OPENAI_REPLY = """
            {"id":"chatcmpl-1","object":"chat.completion","model":"gpt-5-mini","choices":[{"index":0,
             "message":{"role":"assistant","content":"Paris."},"finish_reason":"stop"}],
             "usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}
            """;

    private static String config(MockWebServer primary, MockWebServer secondary) {
        return """
                providers:
                  - name: claude
                    kind: anthropic
                    model: claude-sonnet-4-5
                    base_url: %s
                    retry: { max_attempts: 1 }
                    fallback: [gpt]
                  - name: gpt
                    kind: openai
                    model: gpt-5-mini
                    base_url: %s
                    retry: { max_attempts: 1 }
                agents: [{ name: a, provider: claude }]
                """.formatted(primary.url("/").toString(), secondary.url("/v1").toString());
    }

    private static MockResponse json(int status, String body) {
        return new MockResponse.Builder().code(status).addHeader("Content-Type", "application/json").body(body).build();
    }

    @Test
    void anOverloadedPrimaryFallsBackAndTheFallbackIsCounted() throws Exception {
        try (MockWebServer primary = new MockWebServer(); MockWebServer secondary = new MockWebServer()) {
            primary.start();
            secondary.start();
            primary.enqueue(json(529, "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"));
            secondary.enqueue(json(200, OPENAI_REPLY));
            Map<String, String> env = Map.of("ANTHROPIC_API_KEY", ANTHROPIC_KEY, "OPENAI_API_KEY", OPENAI_KEY);
            List<FallbackEvent> events = new CopyOnWriteArrayList<>();
            List<LogCapture.Line> lines;
            try (LogCapture logs = LogCapture.start()) {
                try (Engine engine = Engine.builder().config(ConfigLoader.parse(config(primary, secondary), "config.yaml",
                        env::get)).environment(env::get).fallbackListener(events::add).build()) {
                    Turn turn = engine.newSession().send("Capital of France?");
                    assertThat(turn.reply().text()).isEqualTo("Paris.");
                    assertThat(engine.usage().total()).as("only the provider that answered is counted")
                            .isEqualTo(Usage.of(12, 3));
                }
                lines = logs.lines();
            }
            assertThat(primary.getRequestCount()).isEqualTo(1);
            RecordedRequest sent = secondary.takeRequest();
            assertThat(sent.getHeaders().get("Authorization")).isEqualTo("Bearer " + OPENAI_KEY);
            assertThat(events).hasSize(1);
            assertThat(events.getFirst().from()).isEqualTo("claude");
            assertThat(events.getFirst().to()).isEqualTo("gpt");
            assertThat(events.getFirst().failure().kind()).isEqualTo(ModelException.Kind.OVERLOADED);
            List<String> warnings = lines.stream().filter(l -> l.level() == org.slf4j.event.Level.WARN)
                    .map(LogCapture.Line::message).toList();
            assertThat(warnings).contains("falling back from provider 'claude' to 'gpt' after overloaded: "
                    + "claude: overloaded (HTTP 529): Overloaded");
            assertThat(lines).extracting(LogCapture.Line::message)
                    .noneMatch(m -> m.contains(ANTHROPIC_KEY) || m.contains(OPENAI_KEY));
        }
    }

    @Test
    void aLongRateLimitIsNotWaitedOutWhenAFallbackCanAnswer() throws Exception {
        try (MockWebServer primary = new MockWebServer(); MockWebServer secondary = new MockWebServer()) {
            primary.start();
            secondary.start();
            primary.enqueue(new MockResponse.Builder().code(429).addHeader("Content-Type", "application/json")
                    .addHeader("retry-after", "30").body("{\"type\":\"error\",\"error\":{\"type\":"
                            + "\"rate_limit_error\",\"message\":\"Number of request tokens has exceeded your per-minute "
                            + "rate limit\"}}").build());
            secondary.enqueue(json(200, OPENAI_REPLY));
            // The default retry (3 attempts) would honour a retry-after of up to 60 s.
            String yaml = config(primary, secondary).replace("    retry: { max_attempts: 1 }\n    fallback", "    fallback");
            Map<String, String> env = Map.of("ANTHROPIC_API_KEY", ANTHROPIC_KEY, "OPENAI_API_KEY", OPENAI_KEY);
            long began = System.nanoTime();
            try (Engine engine = Engine.builder().config(ConfigLoader.parse(yaml, "config.yaml", env::get))
                    .environment(env::get).build()) {
                assertThat(engine.newSession().send("Capital of France?").reply().text()).isEqualTo("Paris.");
            }
            assertThat(java.time.Duration.ofNanos(System.nanoTime() - began)).isLessThan(java.time.Duration.ofSeconds(10));
            assertThat(primary.getRequestCount()).isEqualTo(1);
        }
    }

    @Test
    void anInvalidRequestDoesNotFallBack() throws Exception {
        try (MockWebServer primary = new MockWebServer(); MockWebServer secondary = new MockWebServer()) {
            primary.start();
            secondary.start();
            primary.enqueue(json(400, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
                    + "\"message\":\"messages: text content blocks must be non-empty\"}}"));
            Map<String, String> env = Map.of("ANTHROPIC_API_KEY", ANTHROPIC_KEY, "OPENAI_API_KEY", OPENAI_KEY);
            try (Engine engine = Engine.builder().config(ConfigLoader.parse(config(primary, secondary), "config.yaml",
                    env::get)).environment(env::get).build()) {
                assertThatThrownBy(() -> engine.newSession().send("hi")).hasMessageContaining("invalid request");
            }
            assertThat(secondary.getRequestCount()).isZero();
        }
    }

    private static ConfigException error(String fallbacks) {
        String yaml = """
                providers:
                  - name: a
                    kind: canned
                    model: m
                    reply: x
                    fallback: %s
                  - name: b
                    kind: canned
                    model: m
                    reply: y
                    fallback: [c]
                  - name: c
                    kind: canned
                    model: m
                    reply: z
                    fallback:
                      - b
                agents: [{ name: x, provider: a }]
                """.formatted(fallbacks);
        try (Engine engine = Engine.builder().config(ConfigLoader.parse(yaml, "config.yaml", k -> null)).build()) {
            throw new AssertionError("expected a ConfigException, built " + engine);
        } catch (ConfigException e) {
            return e;
        }
    }

    @Test
    void aFallbackNamingAnUnknownProviderItselfOrACycleIsAConfigError() {
        assertThat(error("[b, nobody]")).hasMessage("config.yaml:6: providers[0].fallback[1]: unknown provider "
                + "'nobody'; expected one of: a, b, c");
        assertThat(error("[a]")).hasMessage("config.yaml:6: providers[0].fallback[0]: provider 'a' cannot fall back "
                + "to itself");
        assertThat(error("[b, b]")).hasMessage("config.yaml:6: providers[0].fallback[1]: provider 'b' is named twice "
                + "in the fallback of 'a'");
        assertThat(error("[b]")).hasMessage("config.yaml:17: providers[2].fallback[0]: fallback cycle: b -> c -> b; "
                + "a provider's fallbacks must not lead back to it");
    }

    @Test
    void theCircuitBreakerAndTheWaitAreConfiguredPerProviderAndCheckedAtTheirLine() throws Exception {
        try (MockWebServer primary = new MockWebServer(); MockWebServer secondary = new MockWebServer()) {
            primary.start();
            secondary.start();
            for (int i = 0; i < 2; i++) {
                primary.enqueue(json(529, "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
                        + "\"message\":\"Overloaded\"}}"));
            }
            for (int i = 0; i < 3; i++) {
                secondary.enqueue(json(200, OPENAI_REPLY));
            }
            String yaml = config(primary, secondary).replace("    fallback: [gpt]\n",
                    "    fallback: [gpt]\n    fallback_wait: 1ms\n    circuit_breaker: { failures: 2, cool_down: 10m }\n");
            Map<String, String> env = Map.of("ANTHROPIC_API_KEY", ANTHROPIC_KEY, "OPENAI_API_KEY", OPENAI_KEY);
            try (Engine engine = Engine.builder().config(ConfigLoader.parse(yaml, "config.yaml", env::get))
                    .environment(env::get).build()) {
                for (int i = 0; i < 3; i++) {
                    assertThat(engine.newSession().send("Capital of France?").reply().text()).isEqualTo("Paris.");
                }
            }
            assertThat(primary.getRequestCount()).as("skipped after two failures").isEqualTo(2);
            assertThat(secondary.getRequestCount()).isEqualTo(3);
        }
        assertThat(error("[b]\n    circuit_breaker: { failures: 0 }")).hasMessage("config.yaml:7: "
                + "providers[0].circuit_breaker.failures: expected a positive whole number, got 0");
    }
}
