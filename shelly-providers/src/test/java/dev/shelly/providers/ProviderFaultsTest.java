package dev.shelly.providers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.RetryEvent;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.provider.spi.ProviderBuilder;
import dev.shelly.providers.anthropic.AnthropicCompleter;
import dev.shelly.providers.openai.OpenAiCompleter;
import dev.shelly.testing.logs.LogCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.SocketEffect;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The faults every provider must survive the same way, on both wire formats, through retries. */
class ProviderFaultsTest {
    private static final String KEY = "sk-faults-0123456789";
    private static final Chat CHAT = Chat.of(Message.user("hi"));

    @StartStop
    private final MockWebServer server = new MockWebServer();

    private final List<RetryEvent> retries = new ArrayList<>();

    private ProviderBuilder<?> builder(String format) {
        ProviderBuilder<?> b = format.equals("anthropic") ? AnthropicCompleter.builder() : OpenAiCompleter.builder();
        return b.baseUrl(server.url("/v1").toString())
                .apiKey(KEY)
                .model("m")
                .maxTokens(64)
                .environment(name -> null)
                .sleeper(new Fixtures.Sleeps())
                .retryListener(retries::add);
    }

    private static String errorEvent(String format, String message) {
        return format.equals("anthropic")
                ? "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\""
                        + message + "\"}}\n\n"
                : "data: {\"error\":{\"message\":\"" + message + "\",\"type\":\"server_error\",\"code\":null}}\n\n";
    }

    private static String errorBody(String format, String message) {
        return format.equals("anthropic")
                ? "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"" + message + "\"}}"
                : "{\"error\":{\"message\":\"" + message + "\",\"type\":\"server_error\",\"code\":null}}";
    }

    private static String stream(String format, String text) {
        return format.equals("anthropic")
                ? "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\",\"model\":\"m\","
                        + "\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n"
                        + "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
                        + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
                        + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
                        + "\"delta\":{\"type\":\"text_delta\",\"text\":\"" + text + "\"}}\n\n"
                        + "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
                        + "\"usage\":{\"output_tokens\":2}}\n\n"
                        + "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
                : "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,"
                        + "\"delta\":{\"role\":\"assistant\",\"content\":\"" + text + "\"}}]}\n\n"
                        + "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,"
                        + "\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
                        + "data: [DONE]\n\n";
    }

    private static MockResponse sse(String body) {
        return new MockResponse.Builder().addHeader("Content-Type", "text/event-stream").body(body).build();
    }

    private static MockResponse cut(String body) {
        return new MockResponse.Builder().addHeader("Content-Type", "text/event-stream").body(body)
                .setHeader("Content-Length", 100_000)
                .onResponseEnd(new SocketEffect.CloseSocket(true, false, false)).build();
    }

    // ---- redaction on every path ---------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"anthropic", "openai"})
    void anErrorEventAfterHttp200IsRedactedInTheMessageTheRetryEventAndTheWarnLine(String format) {
        for (int i = 0; i < 3; i++) {
            server.enqueue(sse(errorEvent(format, "overloaded for key " + KEY)));
        }
        List<String> logged;
        try (LogCapture logs = LogCapture.start()) {
            assertThatThrownBy(() -> builder(format).build().complete(Fixtures.request(CHAT, List.of()), delta -> { }))
                    .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.retryable()).isTrue())
                    .hasMessageEndingWith(": overloaded for key [redacted]");
            logged = logs.lines().stream().map(LogCapture.Line::render).toList();
        }
        assertThat(retries).hasSize(2).allSatisfy(r -> assertThat(r.toString()).doesNotContain(KEY).contains("[redacted]"));
        assertThat(logged).filteredOn(l -> l.startsWith("WARN")).hasSize(2)
                .allSatisfy(l -> assertThat(l).doesNotContain(KEY).contains("[redacted]"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"anthropic", "openai"})
    void anErrorObjectInA200BodyIsRedacted(String format) {
        server.enqueue(Fixtures.json(200, errorBody(format, "bad key " + KEY)));
        assertThatThrownBy(() -> builder(format).retry(dev.shelly.modeladapter.RetryPolicy.none()).build()
                .complete(Fixtures.request(CHAT, List.of())))
                .hasMessageContaining("bad key [redacted]")
                .hasMessageNotContaining(KEY);
    }

    @ParameterizedTest
    @ValueSource(strings = {"anthropic", "openai"})
    void anInvalidReplyEchoingAHeaderValueIsRedactedInTheMessageAndTheCause(String format) {
        String token = "org_faults_0123456789";
        server.enqueue(Fixtures.json(200, token + " is not JSON"));
        assertThatThrownBy(() -> builder(format).header("X-Org", token).build().complete(Fixtures.request(CHAT, List.of())))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.INVALID_RESPONSE);
                    assertThat(e.getMessage()).doesNotContain(token).contains("'[redacted]'");
                    assertThat(e.getCause().getMessage()).doesNotContain(token);
                });
        assertThat(server.getRequestCount()).isEqualTo(1);
    }

    // ---- the call deadline ---------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aTricklingServerIsCutOffAtTheDeadlineWithOneAttempt(boolean streamed) throws Exception {
        for (String format : List.of("anthropic", "openai")) {
            server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/event-stream")
                    .body(": " + "x".repeat(5_000) + "\n\n").throttleBody(1, 10, TimeUnit.MILLISECONDS).build());
            Completer completer = builder(format).callTimeout(Duration.ofSeconds(1)).build();
            assertThatThrownBy(() -> {
                if (streamed) {
                    completer.complete(Fixtures.request(CHAT, List.of()), delta -> { });
                } else {
                    completer.complete(Fixtures.request(CHAT, List.of()));
                }
            }).isInstanceOfSatisfying(ModelException.class, e -> {
                assertThat(e.kind()).isEqualTo(Kind.TIMEOUT);
                assertThat(e.retryable()).isFalse();
            }).hasMessage(format + ": timeout: no complete reply within the call deadline of 1 s");
            assertThat(takeRequests()).as(format + " attempts").isEqualTo(1);
        }
    }

    @Test
    void everyProviderHasATenMinuteDeadlineByDefault() {
        assertThat(builder("anthropic").toString()).contains("callTimeout=PT10M");
        assertThat(builder("openai").toString()).contains("callTimeout=PT10M");
    }

    /** How many requests arrived since the last call: the first may take a while to be recorded. */
    private int takeRequests() throws InterruptedException {
        int n = 0;
        long wait = 5_000;
        while (server.takeRequest(wait, TimeUnit.MILLISECONDS) != null) {
            n++;
            wait = 200;
        }
        return n;
    }

    // ---- a 200 that is not a reply -------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"anthropic", "openai"})
    void anHtmlPageWithStatus200IsAnInvalidResponseWithOneAttemptStreamedOrNot(String format) {
        String page = "<html><head><title>Proxy login</title></head><body>Please sign in</body></html>";
        for (boolean streamed : new boolean[] {false, true}) {
            for (int i = 0; i < 3; i++) { // as many as the default policy's attempts: one must be used
                server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/html").body(page).build());
            }
            Completer completer = builder(format).build();
            int before = server.getRequestCount();
            assertThatThrownBy(() -> {
                if (streamed) {
                    completer.complete(Fixtures.request(CHAT, List.of()), delta -> { });
                } else {
                    completer.complete(Fixtures.request(CHAT, List.of()));
                }
            }).isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.INVALID_RESPONSE));
            assertThat(server.getRequestCount() - before).as(format + (streamed ? " streamed" : "") + " attempts")
                    .isEqualTo(1);
        }
        assertThat(retries).isEmpty();
    }

    // ---- cut streams ---------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"anthropic", "openai"})
    void aCutStreamNobodyListensToIsRetried(String format) {
        String whole = stream(format, "hello");
        server.enqueue(cut(whole.substring(0, whole.indexOf("hello") + 20)));
        server.enqueue(sse(whole));
        ModelResponse reply = builder(format).build().complete(Fixtures.request(CHAT, List.of()), StreamListener.NONE);
        assertThat(reply.message().text()).isEqualTo("hello");
        assertThat(server.getRequestCount()).isEqualTo(2);
        assertThat(retries).hasSize(1);
        assertThat(retries.get(0).failure().kind()).isEqualTo(Kind.NETWORK);
    }

    @ParameterizedTest
    @ValueSource(strings = {"anthropic", "openai"})
    void aCutStreamIsRetriedWhileOnlyUsageReachedTheListenerButNeverOnceContentDid(String format) {
        String whole = stream(format, "hello");
        int content = whole.indexOf("hello");
        int cutBeforeContent = whole.lastIndexOf("\n\n", content) + 2;
        server.enqueue(cut(whole.substring(0, cutBeforeContent)));
        server.enqueue(sse(whole));
        List<Delta> seen = new ArrayList<>();
        assertThat(builder(format).build().complete(Fixtures.request(CHAT, List.of()), seen::add).message().text()).isEqualTo("hello");
        assertThat(server.getRequestCount()).isEqualTo(2);
        assertThat(seen).filteredOn(d -> !(d instanceof Delta.UsageDelta)).containsExactly(new Delta.TextDelta("hello"));

        server.enqueue(cut(whole.substring(0, content + 20)));
        server.enqueue(sse(whole));
        assertThatThrownBy(() -> builder(format).build().complete(Fixtures.request(CHAT, List.of()), delta -> { }))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.NETWORK));
        assertThat(server.getRequestCount()).as("not retried once content reached the listener").isEqualTo(3);
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
