package dev.shelly.providers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.providers.anthropic.AnthropicCompleter;
import dev.shelly.providers.openai.OpenAiCompleter;
import java.util.List;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The errors of llama.cpp's {@code llama-server}, byte for byte, on both endpoints it serves:
 * the OpenAI-compatible {@code /v1/chat/completions} and the Anthropic-compatible
 * {@code /v1/messages}, which answers a full context in OpenAI's error shape. Called with the
 * placeholder key {@code x} local servers are commonly given.
 */
class LlamaServerErrorsTest {
    /** llama-server's answer to a request longer than its context ({@code --ctx-size 2048}). */
    static final String OVERFLOW = "{\"error\":{\"code\":400,\"message\":\"request (2574 tokens) exceeds the available "
            + "context size (2048 tokens), try increasing it\",\"type\":\"exceed_context_size_error\","
            + "\"n_prompt_tokens\":2574,\"n_ctx\":2048}}";
    private static final String SAID = "request (2574 tokens) exceeds the available context size (2048 tokens), "
            + "try increasing it";

    @StartStop
    private final MockWebServer server = new MockWebServer();

    private Completer completer(String endpoint) {
        return switch (endpoint) {
            case "openai" -> OpenAiCompleter.compatible().name("llama").baseUrl(server.url("/v1").toString())
                    .apiKey("x").model("qwen3-0.6b").environment(name -> null).retry(RetryPolicy.none()).build();
            case "anthropic" -> AnthropicCompleter.builder().baseUrl(server.url("/").toString()).apiKey("x")
                    .model("qwen3-0.6b").environment(name -> null).retry(RetryPolicy.none()).build();
            default -> throw new IllegalArgumentException(endpoint);
        };
    }

    @ParameterizedTest(name = "{0}, streamed {1}")
    @CsvSource({"openai, llama, false", "openai, llama, true", "anthropic, anthropic, false",
            "anthropic, anthropic, true"})
    void aFullContextIsAContextOverflowNamingModelWindowAndSizeInReadableText(String endpoint, String provider,
            boolean streamed) {
        server.enqueue(Fixtures.json(400, OVERFLOW));
        Completer completer = completer(endpoint);
        var request = Fixtures.request(Chat.of(Message.user("a long story")), List.of());
        assertThatThrownBy(() -> {
            if (streamed) {
                completer.complete(request, d -> { });
            } else {
                completer.complete(request);
            }
        }).isInstanceOfSatisfying(ModelException.class, e -> {
            assertThat(e.kind()).isEqualTo(Kind.CONTEXT_LENGTH_EXCEEDED);
            assertThat(e.retryable()).isFalse();
            assertThat(e.model()).contains("qwen3-0.6b");
            assertThat(e.requestTokens()).hasValue(2574);
            assertThat(e.contextWindow()).hasValue(2048);
            assertThat(e.providerMessage()).contains(SAID);
            assertThat(e.getMessage()).isEqualTo(provider + ": context length exceeded (HTTP 400): the request "
                    + "(2574 tokens) does not fit the context window of model qwen3-0.6b (2048 tokens): " + SAID);
        });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"openai, llama", "anthropic, anthropic"})
    void aPlaceholderKeyIsNotRedactedOutOfTheServersWords(String endpoint, String provider) {
        server.enqueue(Fixtures.json(400, "{\"error\":{\"code\":400,\"message\":\"the request exceeds the maximum "
                + "number of tools (x)\",\"type\":\"invalid_request_error\"}}"));
        assertThatThrownBy(() -> completer(endpoint).complete(Fixtures.request(Chat.of(Message.user("hi")), List.of())))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.INVALID_REQUEST))
                .hasMessage(provider + ": invalid request (HTTP 400): the request exceeds the maximum number of tools (x)");
    }
}
