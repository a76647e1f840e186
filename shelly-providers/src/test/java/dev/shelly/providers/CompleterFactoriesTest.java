package dev.shelly.providers;

import static dev.shelly.providers.Fixtures.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.spi.CompleterFactory;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import dev.shelly.modeladapter.spi.ProviderSettings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;

/** Each kind this module ships is found by ServiceLoader and built from settings, reporting bad ones by field. */
class CompleterFactoriesTest {
    private static final String CHAT_REPLY = "{\"id\":\"x\",\"choices\":[{\"index\":0,\"message\":{\"content\":\"ok\"}}]}";
    private static final String MESSAGES_REPLY = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
            + "\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"stop_reason\":\"end_turn\","
            + "\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}";

    @StartStop
    private final MockWebServer server = new MockWebServer();

    private static Map<String, CompleterFactory> factories() {
        Map<String, CompleterFactory> byKind = new TreeMap<>();
        ServiceLoader.load(CompleterFactory.class).forEach(f -> byKind.put(f.kind(), f));
        return byKind;
    }

    private static ProviderSettings settings(Map<String, Object> values, Map<String, String> env) {
        return ProviderSettings.of("p", values, env::get);
    }

    private RecordedRequest callOnce(String kind, String reply, Map<String, Object> values, Map<String, String> env)
            throws Exception {
        server.enqueue(json(200, reply));
        Map<String, Object> all = new LinkedHashMap<>(values);
        all.put("base_url", server.url("/v1").toString());
        ProviderSettings s = settings(all, env);
        Completer completer = factories().get(kind).create(s);
        completer.complete(Fixtures.request(Chat.of(Message.user("hi")), List.of()));
        assertThat(s.unread()).as("every setting given is read").isEmpty();
        return server.takeRequest();
    }

    @Test
    void everyShippedKindIsFound() {
        assertThat(factories().keySet()).containsExactly("anthropic", "azure-openai", "gemini", "grok", "openai", "openai-compatible");
    }

    @Test
    void eachKindIsBuiltFromItsSettingsWithTheKeyFromTheSettingsOrTheEnvironment() throws Exception {
        RecordedRequest anthropic = callOnce("anthropic", MESSAGES_REPLY,
                Map.of("model", "claude-test", "max_tokens", 100, "headers", Map.of("x-team", "a")),
                Map.of("ANTHROPIC_API_KEY", "sk-ant-env"));
        assertThat(anthropic.getHeaders().get("x-api-key")).isEqualTo("sk-ant-env");
        assertThat(anthropic.getHeaders().get("x-team")).isEqualTo("a");
        assertThat(anthropic.getBody().utf8()).contains("\"max_tokens\":100", "\"model\":\"claude-test\"");

        RecordedRequest openai = callOnce("openai", CHAT_REPLY,
                Map.of("model", "gpt-test", "api_key", "sk-conf", "temperature", 0.5, "timeout", "PT30S"), Map.of());
        assertThat(openai.getHeaders().get("Authorization")).isEqualTo("Bearer sk-conf");
        assertThat(openai.getBody().utf8()).contains("\"temperature\":0.5");

        RecordedRequest grok = callOnce("grok", CHAT_REPLY, Map.of("model", "grok-test"), Map.of("XAI_API_KEY", "xai-env"));
        assertThat(grok.getHeaders().get("Authorization")).isEqualTo("Bearer xai-env");

        RecordedRequest local = callOnce("openai-compatible", CHAT_REPLY, Map.of("model", "llama"),
                Map.of("OPENAI_API_KEY", "must-not-leak"));
        assertThat(local.getHeaders().get("Authorization")).isNull();
    }

    @Test
    void aMissingKeyOrBaseUrlIsReportedByItsField() {
        assertThatThrownBy(() -> factories().get("anthropic").create(settings(Map.of("model", "m"), Map.of())))
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                    assertThat(e.field()).isEqualTo("api_key");
                    assertThat(e.reason()).isEqualTo("no API key; set api_key, or the environment variable ANTHROPIC_API_KEY");
                });
        assertThatThrownBy(() -> factories().get("openai-compatible").create(settings(Map.of("model", "m"), Map.of())))
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                    assertThat(e.field()).isEqualTo("base_url");
                    assertThat(e.reason()).isEqualTo("missing required field");
                });
    }

    @Test
    void badValuesAreReportedByFieldWithoutTheSecret() {
        String key = "sk-secret\nvalue";
        assertThatThrownBy(() -> factories().get("openai").create(settings(Map.of("model", "m", "api_key", key), Map.of())))
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                    assertThat(e.field()).isEqualTo("api_key");
                    assertThat(e.getMessage()).doesNotContain("sk-secret");
                });
        assertThatThrownBy(() -> factories().get("openai").create(settings(
                Map.of("model", "m", "api_key", "k", "headers", Map.of("Authorization", "Bearer tok\u00e9n-secret")), Map.of())))
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                    assertThat(e.field()).isEqualTo("headers.Authorization");
                    assertThat(e.getMessage()).doesNotContain("secret");
                });
        assertThatThrownBy(() -> factories().get("openai").create(settings(
                Map.of("model", "m", "api_key", "k", "max_tokens", "lots"), Map.of())))
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> assertThat(e)
                        .hasMessage("max_tokens: expected a whole number, got 'lots'"));
        assertThatThrownBy(() -> factories().get("openai").create(settings(
                Map.of("model", "m", "api_key", "k", "base_url", "ftp://user:pw@h/v1"), Map.of())))
                .hasMessage("base_url: expected an http or https URL, got 'ftp://h/v1'");
    }

    @Test
    void aFieldNoKindReadsIsLeftUnread() {
        ProviderSettings s = settings(Map.of("model", "m", "api_key", "k", "max_token", 10), Map.of());
        factories().get("openai").create(s);
        assertThat(s.unread()).containsExactly("max_token");
        assertThat(s.read()).contains("api_key", "base_url", "headers", "max_tokens", "model", "temperature", "timeout");
    }
}
