package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.AgentEvent;
import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.ConfigLoader;
import dev.shelly.modeladapter.Usage;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Provider kinds are plug-ins found with ServiceLoader: Shelly's own (shelly-providers, on this
 * module's test class path) and a user's own ({@code canned}, from this module's test sources and
 * META-INF/services), which works from config.yaml with no change to Shelly and reports its own
 * field errors at their file, line and path.
 */
class ProviderKindsTest {

    private static Engine build(String yaml, Map<String, String> env) {
        return Engine.builder().config(ConfigLoader.parse(yaml, "config.yaml", env::get)).environment(env::get).build();
    }

    private static ConfigException error(String yaml, Map<String, String> env) {
        try (Engine engine = build(yaml, env)) {
            throw new AssertionError("expected a ConfigException, built " + engine);
        } catch (ConfigException e) {
            return e;
        }
    }

    @Test
    void aUsersOwnKindIsUsableFromConfig() {
        try (Engine engine = build("""
                providers:
                  - name: parrot
                    kind: canned
                    model: canned-1
                    reply: ${REPLY}
                    repeat: 2
                agents: [{ name: a }]
                """, Map.of("REPLY", "hello"))) {
            assertThat(engine.newSession().send("hi").reply().text()).isEqualTo("hello hello");
            assertThat(engine.usage().total()).as("the engine counts the plug-in's usage").isEqualTo(Usage.of(1, 1));
        }
    }

    @Test
    void anAgentAsksItsProvidersKindForAModelOfItsOwn() {
        List<String> models = new CopyOnWriteArrayList<>();
        try (Engine engine = build("""
                providers:
                  - name: parrot
                    kind: canned
                    model: canned-big
                    reply: hello
                agents:
                  - name: a
                  - name: quick
                    model: canned-small
                entry_agent: a
                """, Map.of())) {
            engine.events().subscribe(AgentEvent.CompletionFinished.class, e -> models.add(e.source().agent() + " "
                    + e.response().model()));
            engine.newSession().send("hi");
            engine.agent("quick").run("hi");
            assertThat(engine.config().modelOf(engine.config().agents().get(1))).isEqualTo("canned-small");
        }
        assertThat(models).as("delivered by the time the engine closed").containsExactly("a canned-big",
                "quick canned-small");
    }

    @Test
    void aUsersOwnKindReportsItsFieldErrorsAtTheirLine() {
        assertThat(error("""
                providers:
                  - name: parrot
                    kind: canned
                    model: canned-1
                    reply: hello
                    repeat: 0
                agents: [{ name: a }]
                """, Map.of())).hasMessage("config.yaml:6: providers[0].repeat: expected a positive whole number, got 0");
        assertThat(error("""
                providers:
                  - name: parrot
                    kind: canned
                    model: canned-1
                agents: [{ name: a }]
                """, Map.of())).hasMessage("config.yaml:2: providers[0].reply: missing required field");
        ConfigException secret = error("""
                providers:
                  - name: parrot
                    kind: canned
                    model: canned-1
                    reply: "the word is ${TOKEN}"
                    token: ${TOKEN}
                agents: [{ name: a }]
                """, Map.of("TOKEN", "s3cr3t-t0ken"));
        assertThat(secret).hasMessage("config.yaml:6: providers[0].token: must not appear in the reply");
        assertThat(error("""
                providers:
                  - name: parrot
                    kind: canned
                    model: canned-1
                    reply: hello
                    repeats: 2
                agents: [{ name: a }]
                """, Map.of())).hasMessage("config.yaml:6: providers[0].repeats: unknown field 'repeats' for provider "
                + "kind 'canned'; expected one of circuit_breaker, fallback, fallback_wait, kind, model, name, rate_limit, repeat, reply, retry, separator, token");
    }

    @Test
    void anUnknownKindListsTheKindsFound() {
        assertThat(error("""
                providers: [{ name: p, kind: claude, model: m }]
                agents: [{ name: a }]
                """, Map.of())).hasMessage("config.yaml:1: providers[0].kind: unknown provider kind 'claude'; expected one "
                + "of anthropic, azure-openai, canned, gemini, grok, openai, openai-compatible");
    }

    @Test
    void shellysKindsReportUnknownAndMissingFieldsByPath() {
        ConfigException unknown = error("""
                providers:
                  - name: p
                    kind: openai
                    model: m
                    max_token: 10
                agents: [{ name: a }]
                """, Map.of("OPENAI_API_KEY", "k"));
        assertThat(unknown).hasMessage("config.yaml:5: providers[0].max_token: unknown field 'max_token' for provider kind "
                + "'openai'; expected one of api, api_key, base_url, circuit_breaker, fallback, fallback_wait, headers, kind, max_tokens, model, name, rate_limit, retry, "
                + "temperature, timeout");
        assertThat(unknown.line()).isEqualTo(5);
        assertThat(unknown.path()).isEqualTo("providers[0].max_token");
        assertThat(error("""
                providers:
                  - name: p
                    kind: anthropic
                    model: m
                agents: [{ name: a }]
                """, Map.of())).hasMessage("config.yaml:2: providers[0].api_key: no API key; set api_key, or the "
                + "environment variable ANTHROPIC_API_KEY");
        assertThat(error("""
                providers:
                  - name: p
                    kind: openai-compatible
                    model: m
                agents: [{ name: a }]
                """, Map.of())).hasMessage("config.yaml:2: providers[0].base_url: missing required field");
        ConfigException header = error("""
                providers:
                  - name: p
                    kind: openai
                    model: m
                    api_key: k
                    headers:
                      X-Token: "line1\\nline2-secret"
                agents: [{ name: a }]
                """, Map.of());
        assertThat(header.getMessage()).startsWith("config.yaml:7: providers[0].headers.X-Token: ").doesNotContain("secret");
    }
}
