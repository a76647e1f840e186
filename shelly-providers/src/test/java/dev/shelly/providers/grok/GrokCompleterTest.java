package dev.shelly.providers.grok;

import static dev.shelly.providers.Fixtures.assertJson;
import static dev.shelly.providers.Fixtures.json;
import static dev.shelly.providers.Fixtures.sse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.Usage;
import dev.shelly.providers.Fixtures;
import dev.shelly.providers.openai.OpenAiCompleter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;

class GrokCompleterTest {
    @StartStop
    private final MockWebServer server = new MockWebServer();

    private OpenAiCompleter completer() {
        Map<String, String> env = Map.of("XAI_API_KEY", "xai-env-key", "XAI_BASE_URL", server.url("/v1").toString(),
                "OPENAI_API_KEY", "must-not-be-used");
        return GrokCompleter.builder().model("grok-3-mini").maxTokens(500).environment(env::get)
                .retry(RetryPolicy.none()).build();
    }

    private static final String REPLY = """
            {"id":"a1b2","object":"chat.completion","created":1752000000,"model":"grok-3-mini",
             "choices":[{"index":0,"message":{"role":"assistant","content":"101 is prime.",
               "reasoning_content":"Check divisors up to 10."},"finish_reason":"stop"}],
             "usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":329,
               "prompt_tokens_details":{"text_tokens":10,"cached_tokens":0},
               "completion_tokens_details":{"reasoning_tokens":317}}}
            """;

    private static final ModelResponse EXPECTED = new ModelResponse(new Message("grok", Role.ASSISTANT,
            List.of(Thinking.of("Check divisors up to 10.", null).withOrigin("openai-chat"), new Text("101 is prime."))),
            new Usage(10, 319, 0, 0, 317), // reasoning tokens are output too
            StopReason.END_TURN, "stop", "grok-3-mini", "a1b2", "grok");

    @Test
    void speaksChatCompletionsWithItsOwnNameKeyAndBaseUrl() throws Exception {
        server.enqueue(json(200, REPLY));
        ModelResponse reply = completer().complete(Fixtures.request(Chat.of(Message.user("Is 101 prime?")), List.of()));
        assertThat(reply).isEqualTo(EXPECTED);
        RecordedRequest request = server.takeRequest();
        assertThat(request.getUrl().encodedPath()).isEqualTo("/v1/chat/completions");
        assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer xai-env-key");
        assertJson(request, """
                {"model":"grok-3-mini","messages":[{"role":"user","content":"Is 101 prime?"}],"max_completion_tokens":500}
                """);
        assertThat(GrokCompleter.builder().model("grok-4").apiKey("k").environment(n -> null).build().toString())
                .isEqualTo("OpenAiCompleter[name=grok, model=grok-4, baseUrl=https://api.x.ai/v1]");
    }

    @Test
    void streamedReasoningIsKeptAsThinkingAndEqualsTheNonStreamedReply() {
        String head = "data: {\"id\":\"a1b2\",\"object\":\"chat.completion.chunk\",\"created\":1752000000,\"model\":\"grok-3-mini\",";
        server.enqueue(sse(head + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"reasoning_content\":\"Check divisors \"}}]}\n\n"
                + head + "\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"up to 10.\"}}]}\n\n"
                + head + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"101 is prime.\"}}]}\n\n"
                + head + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
                + head + "\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":2,\"total_tokens\":329,"
                + "\"completion_tokens_details\":{\"reasoning_tokens\":317}}}\n\n"
                + "data: [DONE]\n\n"));
        List<Delta> deltas = new ArrayList<>();
        ModelResponse reply = completer().complete(Fixtures.request(Chat.of(Message.user("Is 101 prime?")), List.of()), deltas::add);
        assertThat(reply).isEqualTo(EXPECTED);
        assertThat(deltas).containsExactly(new Delta.ThinkingDelta("Check divisors "), new Delta.ThinkingDelta("up to 10."),
                new Delta.TextDelta("101 is prime."), new Delta.UsageDelta(new Usage(10, 319, 0, 0, 317)));
    }

    @Test
    void usedUpCreditsOrASpendingLimitIsAQuotaFailureNeverRetried() {
        // xAI reports exhausted credits as 429 (Chat Completions) or 403, in its own error shape.
        server.enqueue(json(429, """
                {"code":"Some resource has been exhausted","error":"Your team 16f2151a-40f4-4a80-8ad0-cae00c27e8dd has either used all available credits or reached its monthly spending limit. To continue making API requests, please purchase more credits or raise your spending limit."}"""));
        server.enqueue(json(403, """
                {"code":"The caller does not have permission to execute the specified operation","error":"Your team 16f2151a-40f4-4a80-8ad0-cae00c27e8dd has either used all available credits or reached its monthly spending limit. To continue making API requests, please purchase more credits or raise your spending limit."}"""));
        dev.shelly.providers.Fixtures.Sleeps sleeps = new dev.shelly.providers.Fixtures.Sleeps();
        Map<String, String> env = Map.of("XAI_API_KEY", "xai-env-key", "XAI_BASE_URL", server.url("/v1").toString());
        OpenAiCompleter retrying = GrokCompleter.builder().model("grok-4").environment(env::get).sleeper(sleeps).build();
        for (int status : new int[] {429, 403}) {
            assertThatThrownBy(() -> retrying.complete(Fixtures.request(Chat.of(Message.user("hi")), List.of())))
                    .isInstanceOfSatisfying(ModelException.class, e -> {
                        assertThat(e.kind()).isEqualTo(Kind.QUOTA_EXCEEDED);
                        assertThat(e.retryable()).isFalse();
                        assertThat(e.status()).isEqualTo(status);
                    });
        }
        assertThat(server.getRequestCount()).isEqualTo(2);
        assertThat(sleeps.delays).isEmpty();
    }

    @Test
    void xaiErrorBodiesAreUnderstood() {
        server.enqueue(json(400, """
                {"code": "Client specified an invalid argument", "error": "Incorrect API key provided: ba***na. You can obtain an API key from https://console.x.ai."}"""));
        assertThatThrownBy(() -> completer().complete(Fixtures.request(Chat.of(Message.user("hi")), List.of())))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.AUTHENTICATION);
                    assertThat(e.getMessage()).isEqualTo("grok: authentication (HTTP 400): Incorrect API key provided: "
                            + "ba***na. You can obtain an API key from https://console.x.ai.");
                });
        server.enqueue(json(400, """
                {"code":"Client specified an invalid argument","error":"This model's maximum prompt length is 131072 but the request contains 136973 tokens."}"""));
        assertThatThrownBy(() -> completer().complete(Fixtures.request(Chat.of(Message.user("long")), List.of())))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.kind())
                        .isEqualTo(Kind.CONTEXT_LENGTH_EXCEEDED));
        assertThatThrownBy(() -> GrokCompleter.builder().model("grok-4").environment(n -> null).build())
                .hasMessage("grok: no API key: call apiKey(...) or set the environment variable XAI_API_KEY");
    }
}
