package dev.shelly.providers.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.spi.CompleterFactory;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import dev.shelly.modeladapter.spi.ProviderSettings;
import dev.shelly.providers.Fixtures;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;

/** The {@code api} setting of the OpenAI kinds chooses Chat Completions or the Responses API. */
class OpenAiApiSettingTest {
    @StartStop
    private final MockWebServer server = new MockWebServer();

    private static CompleterFactory factory(String kind) {
        Map<String, CompleterFactory> byKind = new TreeMap<>();
        ServiceLoader.load(CompleterFactory.class).forEach(f -> byKind.put(f.kind(), f));
        return byKind.get(kind);
    }

    @Test
    void apiResponsesChoosesTheResponsesApiForEveryOpenAiKindAndChatStaysTheDefault() throws Exception {
        for (String kind : List.of("openai", "grok", "openai-compatible")) {
            server.enqueue(Fixtures.json(200, "{\"id\":\"resp_1\",\"status\":\"completed\",\"model\":\"m\",\"output\":[]}"));
            ProviderSettings settings = ProviderSettings.of("p1", Map.of("model", "m", "base_url",
                    server.url("/v1").toString(), "api_key", "k-0123456789", "api", "responses"), name -> null);
            Completer completer = factory(kind).create(settings);
            assertThat(settings.unread()).as(kind).isEmpty();
            completer.complete(Fixtures.request(Chat.of(Message.user("hi")), List.of()));
            assertThat(server.takeRequest().getUrl().encodedPath()).as(kind).isEqualTo("/v1/responses");
        }
        server.enqueue(Fixtures.json(200, "{\"id\":\"c\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                + "\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}"));
        factory("openai").create(ProviderSettings.of("p1", Map.of("model", "m", "base_url", server.url("/v1").toString()),
                Map.of("OPENAI_API_KEY", "k")::get)).complete(Fixtures.request(Chat.of(Message.user("hi")), List.of()));
        assertThat(server.takeRequest().getUrl().encodedPath()).isEqualTo("/v1/chat/completions");
    }

    @Test
    void anUnknownApiIsNamedByItsField() {
        assertThatThrownBy(() -> factory("openai").create(ProviderSettings.of("p1",
                Map.of("model", "m", "api_key", "k", "api", "assistants"), name -> null)))
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                    assertThat(e.field()).isEqualTo("api");
                    assertThat(e.reason()).isEqualTo("expected chat or responses, got 'assistants'");
                });
    }

    @Test
    void anthropicAndGeminiDoNotReadApiSoTheEngineReportsItAsUnknown() {
        for (String kind : List.of("anthropic", "gemini")) {
            ProviderSettings settings = ProviderSettings.of("p1", Map.of("model", "m", "api_key", "k", "api", "responses"),
                    name -> null);
            factory(kind).create(settings);
            assertThat(settings.unread()).as(kind).containsExactly("api");
        }
    }
}
