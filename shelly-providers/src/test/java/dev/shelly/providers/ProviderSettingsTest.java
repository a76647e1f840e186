package dev.shelly.providers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.provider.spi.ProviderBuilder;
import dev.shelly.providers.anthropic.AnthropicCompleter;
import dev.shelly.providers.gemini.GeminiCompleter;
import dev.shelly.providers.openai.OpenAiCompleter;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Settings every provider checks the same way. The faults every provider survives (error kinds,
 * retries, cut streams, deadlines, cancellation, redaction) are in {@link ProviderContract}.
 */
class ProviderSettingsTest {
    private static final String KEY = "sk-faults-0123456789";

    @StartStop
    private final MockWebServer server = new MockWebServer();

    private ProviderBuilder<?> builder(String format) {
        ProviderBuilder<?> b = switch (format) {
            case "anthropic" -> AnthropicCompleter.builder();
            case "gemini" -> GeminiCompleter.builder();
            default -> OpenAiCompleter.builder();
        };
        return b.baseUrl(server.url("/v1").toString())
                .apiKey(KEY)
                .model("m")
                .maxTokens(64)
                .environment(name -> null)
                .sleeper(new Fixtures.Sleeps());
    }

    @Test
    void everyProviderHasATenMinuteDeadlineByDefault() {
        assertThat(builder("anthropic").toString()).contains("callTimeout=PT10M");
        assertThat(builder("openai").toString()).contains("callTimeout=PT10M");
        assertThat(builder("gemini").toString()).contains("callTimeout=PT10M");
    }

    // ---- settings that cannot be sent ----------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"tok\r\nX-Injected: 1", "tok\u0000", "tok\u0007", "tok\u007f"})
    void aHeaderValueWithAControlCharacterIsRefusedWhenSet(String value) {
        assertThatThrownBy(() -> builder("openai").header("X-Org-Token", value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("openai: the value of header X-Org-Token has a control character at index 3")
                .hasMessageNotContaining("tok");
    }

    @Test
    void aKeyWithAControlCharacterIsRefusedWhenBuiltNamingWhereItCameFrom() {
        assertThatThrownBy(() -> builder("anthropic").apiKey("sk-a\nb-secret").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("anthropic: the API key from apiKey(...) has a control character at index 4 (a stray newline"
                        + " or quote?); the key is not shown");
        assertThatThrownBy(() -> builder("openai").apiKey(null).environment(name -> "sk-\u0001x").build())
                .hasMessage("openai: the API key from the environment variable OPENAI_API_KEY has a control character at"
                        + " index 3 (a stray newline or quote?); the key is not shown");
    }

    @Test
    void toStringsMaskTheQueryAndUserInfoOfTheBaseUrl() {
        ProviderBuilder<?> b = builder("openai").baseUrl("https://bob:pw-secret@proxy.example/v1?api-key=q-secret");
        assertThat(b.toString()).contains("baseUrl=https://***@proxy.example/v1?api-key=***").doesNotContain("secret");
        assertThat(b.build().toString()).contains("baseUrl=https://***@proxy.example/v1?api-key=***").doesNotContain("secret");
    }
}
