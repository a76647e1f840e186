package dev.shelly.providers.gemini;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.spi.CompleterFactory;
import dev.shelly.providers.internal.GeminiFactory;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import dev.shelly.modeladapter.spi.ProviderSettings;
import dev.shelly.providers.Fixtures;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;

/** The {@code gemini} kind is found with ServiceLoader and built from configured settings. */
class GeminiFactoryTest {
    @StartStop
    private final MockWebServer server = new MockWebServer();

    private static Map<String, CompleterFactory> factories() {
        Map<String, CompleterFactory> byKind = new TreeMap<>();
        ServiceLoader.load(CompleterFactory.class).forEach(f -> byKind.put(f.kind(), f));
        return byKind;
    }

    private static Completer create(String kind, Map<String, Object> values, Map<String, String> env) {
        ProviderSettings settings = ProviderSettings.of("p1", values, env::get);
        Completer completer = factories().get(kind).create(settings);
        assertThat(settings.unread()).as("every setting is read").isEmpty();
        return completer;
    }

    @Test
    void theGeminiKindIsFoundByServiceLoader() {
        assertThat(factories()).containsKey("gemini");
        assertThat(factories().get("gemini")).isInstanceOf(GeminiFactory.class);
    }

    @Test
    void geminiIsBuiltFromItsSettingsWithTheKeyFromTheEnvironment() throws Exception {
        server.enqueue(Fixtures.json(200, "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"hi\"}]},"
                + "\"finishReason\":\"STOP\"}],\"responseId\":\"r\"}"));
        Map<String, Object> values = new HashMap<>();
        values.put("model", "gemini-2.5-flash");
        values.put("base_url", server.url("/").toString());
        values.put("max_tokens", 256);
        values.put("headers", Map.of("x-goog-user-project", "proj-0123456789"));
        Completer gemini = create("gemini", values, Map.of("GOOGLE_API_KEY", "g-key-0123456789"));
        assertThat(gemini.complete(Fixtures.request(Chat.of(Message.user("hi")), List.of())).message().text())
                .isEqualTo("hi");
        RecordedRequest request = server.takeRequest();
        assertThat(request.getUrl().encodedPath()).isEqualTo("/v1beta/models/gemini-2.5-flash:generateContent");
        assertThat(request.getHeaders().get("x-goog-api-key")).isEqualTo("g-key-0123456789");
        assertThat(request.getHeaders().get("x-goog-user-project")).isEqualTo("proj-0123456789");
        assertThat(request.getBody().utf8()).contains("\"generationConfig\":{\"maxOutputTokens\":256}");
    }

    @Test
    void aWrongOrMissingSettingIsNamedByItsField() {
        assertThatThrownBy(() -> create("gemini", Map.of("model", "gemini-2.5-flash"), Map.of()))
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                    assertThat(e.field()).isEqualTo("api_key");
                    assertThat(e.reason()).isEqualTo("no API key; set api_key, or the environment variable GEMINI_API_KEY"
                            + " or GOOGLE_API_KEY");
                });
        assertThatThrownBy(() -> create("gemini", Map.of("api_key", "k"), Map.of()))
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> assertThat(e.field()).isEqualTo("model"));
        assertThatThrownBy(() -> create("gemini", Map.of("model", "g", "api_key", "k",
                "headers", Map.of("X-Bad", "tok-secret\nbreak")), Map.of()))
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                    assertThat(e.field()).isEqualTo("headers.X-Bad");
                    assertThat(e.getMessage()).doesNotContain("tok-secret");
                });
    }

    @Test
    void retriesAreLeftToTheEngine() {
        for (int i = 0; i < 3; i++) {
            server.enqueue(Fixtures.json(503, "{\"error\":{\"code\":503,\"message\":\"The model is overloaded.\","
                    + "\"status\":\"UNAVAILABLE\"}}"));
        }
        Completer gemini = create("gemini", Map.of("model", "g", "api_key", "k", "base_url", server.url("/").toString()),
                Map.of());
        assertThatThrownBy(() -> gemini.complete(Fixtures.request(Chat.of(Message.user("hi")), List.of())))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.retryable()).isTrue());
        assertThat(server.getRequestCount()).isEqualTo(1);
    }
}
