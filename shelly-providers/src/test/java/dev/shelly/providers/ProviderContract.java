package dev.shelly.providers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTarget;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.modeladapter.RetryingCompleter.RetryEvent;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.modeladapter.UsageTracker;
import dev.shelly.provider.spi.ProviderBuilder;
import dev.shelly.providers.internal.WireSupport;
import dev.shelly.testing.logs.LogCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The contract every provider keeps, written once: each provider's test extends it and supplies
 * its wire fixtures (taken from the provider's public API reference), and the same tests run
 * against each: the exact request JSON, a streamed reply equal to the non-streamed one, every
 * error kind with its retry behaviour, {@code retry-after}, cancellation by interruption, cut
 * streams, the call deadline, secrets kept out of errors, and settings from the environment.
 */
public abstract class ProviderContract {
    /** The key every contract test uses; it must never show in an error. */
    protected static final String KEY = "sk-contract-0123456789";

    /** The kinds every provider maps from a realistic error response. */
    public enum ErrorCase {
        /** A wrong key. */
        AUTHENTICATION,
        /** Too many requests for now. */
        RATE_LIMITED,
        /** The provider is overloaded. */
        OVERLOADED,
        /** A malformed request. */
        INVALID_REQUEST,
        /** A conversation longer than the context window. */
        CONTEXT_LENGTH_EXCEEDED,
        /** A failure on the provider's side. */
        SERVER;

        Kind kind() {
            return Kind.valueOf(name());
        }
    }

    /** The fake provider, started and stopped around each test. */
    @StartStop
    protected final MockWebServer server = new MockWebServer();

    // ---- what each provider supplies -----------------------------------------------------

    /**
     * The provider's name, as errors and replies show it.
     *
     * @return e.g. {@code anthropic}
     */
    protected abstract String name();

    /**
     * A fresh builder of the provider, with nothing set.
     *
     * @return the builder
     */
    protected abstract ProviderBuilder<?> newBuilder();

    /**
     * The model the fixtures name.
     *
     * @return the model
     */
    protected abstract String model();

    /**
     * The path of the fake server that is the provider's base URL.
     *
     * @return {@code /} or {@code /v1}
     */
    protected abstract String basePath();

    /**
     * The path a request goes to.
     *
     * @param stream whether the call streams
     * @return the encoded path, with the query if any
     */
    protected abstract String expectedPath(boolean stream);

    /**
     * The environment variables the key may come from, in order.
     *
     * @return the variables
     */
    protected abstract List<String> keyVariables();

    /**
     * The environment variable of the base URL.
     *
     * @return the variable
     */
    protected abstract String baseUrlVariable();

    /**
     * Asserts that a request carried the key the provider's way, and only that way.
     *
     * @param request the recorded request
     * @param key the key
     */
    protected abstract void assertKeySent(RecordedRequest request, String key);

    /**
     * The exact body of {@link Fixtures#conversation()} with {@link Fixtures#tools()}, max
     * tokens 1024 and temperature 0.5, not streamed.
     *
     * @return the JSON
     */
    protected abstract String conversationRequest();

    /**
     * The fields a streamed request adds at the end of the same body.
     *
     * @return a JSON object, {@code {}} for none
     */
    protected abstract String streamFields();

    /**
     * A whole reply with thinking (where the provider has it), text, two tool calls and usage.
     *
     * @return the JSON body
     */
    protected abstract String reply();

    /**
     * The same reply as the provider streams it.
     *
     * @return the event-stream body
     */
    protected abstract String streamedReply();

    /**
     * What {@link #reply()} and {@link #streamedReply()} both become.
     *
     * @return the response
     */
    protected abstract ModelResponse expectedReply();

    /**
     * A complete, minimal stream whose reply is exactly this text, with usage.
     *
     * @param text the text, plain ASCII
     * @return the event-stream body
     */
    protected abstract String streamOf(String text);

    /**
     * A stream that reports a retryable failure (overload or server) after HTTP 200.
     *
     * @param message the failure's message, plain ASCII
     * @return the event-stream body
     */
    protected abstract String errorEvent(String message);

    /**
     * A body that comes with HTTP 200 and holds an error object.
     *
     * @param message the error's message, plain ASCII
     * @return the JSON body
     */
    protected abstract String errorObject(String message);

    /**
     * The provider's realistic error response for a kind.
     *
     * @param kind the kind
     * @return the response, status and body as the provider sends them
     */
    protected abstract MockResponse errorResponse(ErrorCase kind);

    // ---- helpers ----------------------------------------------------------------------------

    private final List<RetryEvent> retries = new ArrayList<>();
    private final Fixtures.Sleeps sleeps = new Fixtures.Sleeps();

    /**
     * The provider pointed at the fake server, with the contract's key, model and no retries.
     *
     * @return the builder
     */
    protected ProviderBuilder<?> builder() {
        return newBuilder().baseUrl(server.url(basePath()).toString()).apiKey(KEY).model(model())
                .environment(name -> null).retry(RetryPolicy.none()).sleeper(sleeps).retryListener(retries::add);
    }

    private ProviderBuilder<?> retrying() {
        return builder().retry(RetryPolicy.defaults().withJitter(0));
    }

    private static Chat hi() {
        return Chat.of(Message.user("hi"));
    }

    private static ModelResponse call(Completer completer, boolean streamed) {
        return streamed ? completer.complete(Fixtures.request(hi(), List.of()), d -> { })
                : completer.complete(Fixtures.request(hi(), List.of()));
    }

    private static String requestPath(RecordedRequest request) {
        String query = request.getUrl().encodedQuery();
        return request.getUrl().encodedPath() + (query == null ? "" : "?" + query);
    }

    // ---- the request ------------------------------------------------------------------------

    @Test
    void theCompleterNamesWhatItCallsBeforeAnyCall() {
        // Telemetry names a call by the target before it is made: every provider reports its own.
        assertThat(builder().build().target()).isEqualTo(new ModelTarget(name(), model()));
        assertThat(server.getRequestCount()).isZero();
    }

    @Test
    void sendsTheConversationExactlyAsTheApiReferenceShowsIt() throws Exception {
        server.enqueue(Fixtures.json(200, reply()));
        builder().maxTokens(1024).temperature(0.5).build()
                .complete(Fixtures.request(Fixtures.conversation(), Fixtures.tools()));
        RecordedRequest request = server.takeRequest();
        assertThat(request.getMethod()).isEqualTo("POST");
        assertThat(requestPath(request)).isEqualTo(expectedPath(false));
        assertThat(request.getHeaders().get("Content-Type")).isEqualTo("application/json");
        assertKeySent(request, KEY);
        Fixtures.assertJson(request, conversationRequest());
    }

    @Test
    void aStreamedRequestGoesToTheStreamingEndpointAndAddsOnlyTheStreamFields() throws Exception {
        server.enqueue(Fixtures.sse(streamedReply()));
        builder().maxTokens(1024).temperature(0.5).build()
                .complete(Fixtures.request(Fixtures.conversation(), Fixtures.tools()), d -> { });
        RecordedRequest request = server.takeRequest();
        assertThat(requestPath(request)).isEqualTo(expectedPath(true));
        assertThat(request.getHeaders().get("Accept")).isEqualTo("text/event-stream");
        ObjectNode expected = (ObjectNode) WireSupport.JSON.readTree(conversationRequest());
        expected.setAll((ObjectNode) WireSupport.JSON.readTree(streamFields()));
        Fixtures.assertJson(request, expected.toString());
    }

    // ---- the reply --------------------------------------------------------------------------

    @Test
    void parsesTheReplyAndRecordsItsUsage() {
        server.enqueue(Fixtures.json(200, reply()));
        UsageTracker tracker = new UsageTracker();
        ModelResponse reply = builder().usageTracker(tracker).build()
                .complete(Fixtures.request(Fixtures.conversation(), Fixtures.tools()));
        assertThat(reply).isEqualTo(expectedReply());
        assertThat(reply.provider()).isEqualTo(name());
        assertThat(reply.message().metadata()).as("replies carry no metadata").isEmpty();
        assertThat(tracker.count()).isEqualTo(1);
        assertThat(tracker.total()).isEqualTo(expectedReply().usage());
    }

    @Test
    void aStreamedReplyEqualsTheNonStreamedOneAndItsDeltasAddUpToIt() {
        server.enqueue(Fixtures.sse(streamedReply()));
        UsageTracker tracker = new UsageTracker();
        List<Delta> deltas = new ArrayList<>();
        ModelResponse reply = builder().usageTracker(tracker).build()
                .complete(Fixtures.request(Fixtures.conversation(), Fixtures.tools()), deltas::add);
        assertThat(reply).isEqualTo(expectedReply());
        assertThat(tracker.count()).isEqualTo(1);
        assertThat(tracker.total()).isEqualTo(expectedReply().usage());

        StringBuilder text = new StringBuilder();
        StringBuilder thinking = new StringBuilder();
        List<String> starts = new ArrayList<>();
        Map<Integer, StringBuilder> arguments = new HashMap<>();
        for (Delta d : deltas) {
            switch (d) {
                case Delta.TextDelta t -> text.append(t.text());
                case Delta.ThinkingDelta t -> thinking.append(t.text());
                case Delta.ToolCallStart s -> {
                    assertThat(s.index()).as("tool calls start in order").isEqualTo(starts.size());
                    starts.add(s.id() + " " + s.name());
                }
                case Delta.ToolCallArguments a -> arguments.computeIfAbsent(a.index(), i -> new StringBuilder())
                        .append(a.fragment());
                case Delta.UsageDelta u -> { }
            }
        }
        List<Part> parts = reply.message().parts();
        assertThat(text.toString()).isEqualTo(reply.message().text());
        assertThat(thinking.toString()).isEqualTo(String.join("", parts.stream()
                .filter(p -> p instanceof Thinking t && !t.redacted()).map(p -> ((Thinking) p).text()).toList()));
        List<ToolCall> calls = reply.message().toolCalls();
        assertThat(starts).isEqualTo(calls.stream().map(c -> c.id() + " " + c.name()).toList());
        for (int i = 0; i < calls.size(); i++) {
            String streamed = arguments.getOrDefault(i, new StringBuilder()).toString();
            assertThat(WireSupport.canonicalArguments(streamed.isEmpty() ? "{}" : streamed))
                    .as("arguments of call " + i).isEqualTo(WireSupport.canonicalArguments(calls.get(i).arguments()));
        }
        assertThat(deltas.getLast()).isEqualTo(new Delta.UsageDelta(expectedReply().usage()));
    }

    @Test
    void aMinimalStreamAnswersItsText() {
        server.enqueue(Fixtures.sse(streamOf("hello")));
        ModelResponse reply = builder().build().complete(Fixtures.request(hi(), List.of()), d -> { });
        assertThat(reply.message().parts()).filteredOn(p -> p instanceof Text).containsExactly(new Text("hello"));
        assertThat(reply.message().toolCalls()).isEmpty();
    }

    // ---- errors and retries ---------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(ErrorCase.class)
    void everyErrorKindIsMappedAndRetriedOnlyWhenWaitingHelps(ErrorCase error) {
        for (int i = 0; i < 3; i++) {
            server.enqueue(errorResponse(error));
        }
        MockResponse sample = errorResponse(error);
        assertThatThrownBy(() -> retrying().build().complete(Fixtures.request(hi(), List.of())))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(error.kind());
                    assertThat(e.retryable()).isEqualTo(error.kind().retryable());
                    assertThat(e.status()).isEqualTo(sample.getCode());
                    assertThat(e.provider()).contains(name());
                    assertThat(e.providerMessage()).hasValueSatisfying(m -> assertThat(m).isNotBlank());
                    assertThat(e.getMessage()).startsWith(name() + ": ").doesNotContain(KEY);
                    if (error == ErrorCase.CONTEXT_LENGTH_EXCEEDED) {
                        assertThat(e.model()).contains(model());
                        assertThat(e.getMessage()).startsWith(name() + ": context length exceeded (HTTP 400): the request ("
                                + e.requestTokens().orElseThrow() + " tokens) does not fit the context window of model "
                                + model() + " (" + e.contextWindow().orElseThrow() + " tokens): " + e.providerMessage().get());
                    }
                });
        assertThat(server.getRequestCount()).as("attempts").isEqualTo(error.kind().retryable() ? 3 : 1);
        assertThat(retries).hasSize(error.kind().retryable() ? 2 : 0);
    }

    @Test
    void retryAfterIsHonouredAndEachRetryIsObservable() {
        server.enqueue(errorResponse(ErrorCase.RATE_LIMITED).newBuilder().setHeader("retry-after", "7").build());
        server.enqueue(errorResponse(ErrorCase.OVERLOADED));
        server.enqueue(Fixtures.json(200, reply()));
        ModelResponse reply = retrying().build().complete(Fixtures.request(Fixtures.conversation(), Fixtures.tools()));
        assertThat(reply).isEqualTo(expectedReply());
        assertThat(sleeps.delays.getFirst()).isEqualTo(Duration.ofSeconds(7));
        assertThat(sleeps.delays).hasSize(2);
        assertThat(retries).extracting(r -> r.failure().kind()).containsExactly(Kind.RATE_LIMITED, Kind.OVERLOADED);
        assertThat(retries).extracting(RetryEvent::fromRetryAfter).containsExactly(true, false);
        assertThat(server.getRequestCount()).isEqualTo(3);
    }

    @Test
    void anErrorEventAfterHttp200IsRetriedRedactedInTheMessageTheRetryEventAndTheWarnLine() {
        for (int i = 0; i < 3; i++) {
            server.enqueue(Fixtures.sse(errorEvent("overloaded for key " + KEY)));
        }
        List<String> logged;
        try (LogCapture logs = LogCapture.start()) {
            assertThatThrownBy(() -> retrying().build().complete(Fixtures.request(hi(), List.of()), delta -> { }))
                    .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.retryable()).isTrue())
                    .hasMessageStartingWith(name() + ": ")
                    .hasMessageEndingWith(": overloaded for key [redacted]");
            logged = logs.lines().stream().map(LogCapture.Line::render).toList();
        }
        assertThat(retries).hasSize(2).allSatisfy(r -> assertThat(r.toString()).doesNotContain(KEY).contains("[redacted]"));
        assertThat(logged).filteredOn(l -> l.startsWith("WARN")).hasSize(2)
                .allSatisfy(l -> assertThat(l).doesNotContain(KEY).contains("[redacted]"));
    }

    @Test
    void anErrorObjectInA200BodyFailsRedacted() {
        server.enqueue(Fixtures.json(200, errorObject("bad key " + KEY)));
        assertThatThrownBy(() -> builder().build().complete(Fixtures.request(hi(), List.of())))
                .isInstanceOf(ModelException.class)
                .hasMessageContaining("bad key [redacted]")
                .hasMessageNotContaining(KEY);
    }

    @Test
    void anInvalidReplyEchoingAHeaderValueIsRedactedInTheMessageAndTheCause() {
        String token = "org_contract_0123456789";
        server.enqueue(Fixtures.json(200, token + " is not JSON"));
        assertThatThrownBy(() -> retrying().header("X-Org", token).build().complete(Fixtures.request(hi(), List.of())))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.INVALID_RESPONSE);
                    assertThat(e.getMessage()).doesNotContain(token).contains("'[redacted]'");
                    assertThat(e.getCause().getMessage()).doesNotContain(token);
                });
        assertThat(server.getRequestCount()).isEqualTo(1);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anHtmlPageWithStatus200IsAnInvalidResponseWithOneAttempt(boolean streamed) {
        for (int i = 0; i < 3; i++) {
            server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/html")
                    .body("<html><head><title>Proxy login</title></head><body>Please sign in</body></html>").build());
        }
        assertThatThrownBy(() -> call(retrying().build(), streamed))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.INVALID_RESPONSE));
        assertThat(server.getRequestCount()).isEqualTo(1);
        assertThat(retries).isEmpty();
    }

    // ---- streams cut short ----------------------------------------------------------------

    /** The stream up to, not including, its last event. */
    private String withoutLastEvent(String stream) {
        String body = stream.stripTrailing();
        return body.substring(0, body.lastIndexOf("\n\n") + 2);
    }

    @Test
    void aStreamClosedBeforeItsLastEventIsANetworkFailureNotATruncatedReply() {
        server.enqueue(Fixtures.sse(withoutLastEvent(streamedReply())));
        assertThatThrownBy(() -> builder().build().complete(Fixtures.request(hi(), List.of()), d -> { }))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.NETWORK);
                    assertThat(e.getMessage()).isEqualTo(name()
                            + ": network (HTTP 200): the server closed the stream before the reply was complete");
                });
    }

    private static MockResponse cut(String body) {
        return new MockResponse.Builder().addHeader("Content-Type", "text/event-stream").body(body)
                .setHeader("Content-Length", 100_000)
                .onResponseEnd(new SocketEffect.CloseSocket(true, false, false)).build();
    }

    @Test
    void aCutStreamNobodyListensToIsRetried() {
        String whole = streamOf("hello");
        server.enqueue(cut(whole.substring(0, whole.indexOf("hello") + 20)));
        server.enqueue(Fixtures.sse(whole));
        ModelResponse reply = retrying().build().complete(Fixtures.request(hi(), List.of()), StreamListener.NONE);
        assertThat(reply.message().text()).isEqualTo("hello");
        assertThat(server.getRequestCount()).isEqualTo(2);
        assertThat(retries).hasSize(1);
        assertThat(retries.getFirst().failure().kind()).isEqualTo(Kind.NETWORK);
    }

    @Test
    void aCutStreamIsRetriedWhileOnlyUsageReachedTheListenerButNeverOnceContentDid() {
        String whole = streamOf("hello");
        int content = whole.indexOf("hello");
        int cutBeforeContent = whole.lastIndexOf("\n\n", content) + 2;
        server.enqueue(cut(whole.substring(0, cutBeforeContent)));
        server.enqueue(Fixtures.sse(whole));
        List<Delta> seen = new ArrayList<>();
        assertThat(retrying().build().complete(Fixtures.request(hi(), List.of()), seen::add).message().text())
                .isEqualTo("hello");
        assertThat(server.getRequestCount()).isEqualTo(2);
        assertThat(seen).filteredOn(d -> !(d instanceof Delta.UsageDelta)).containsExactly(new Delta.TextDelta("hello"));

        server.enqueue(cut(whole.substring(0, whole.indexOf("\n\n", content) + 2)));
        server.enqueue(Fixtures.sse(whole));
        assertThatThrownBy(() -> retrying().build().complete(Fixtures.request(hi(), List.of()), delta -> { }))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.NETWORK));
        assertThat(server.getRequestCount()).as("not retried once content reached the listener").isEqualTo(3);
    }

    // ---- deadlines and cancellation -------------------------------------------------------

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aTricklingServerIsCutOffAtTheDeadlineWithOneAttempt(boolean streamed) throws Exception {
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/event-stream")
                .body(": " + "x".repeat(5_000) + "\n\n").throttleBody(1, 10, TimeUnit.MILLISECONDS).build());
        Completer completer = retrying().callTimeout(Duration.ofSeconds(1)).build();
        assertThatThrownBy(() -> call(completer, streamed)).isInstanceOfSatisfying(ModelException.class, e -> {
            assertThat(e.kind()).isEqualTo(Kind.TIMEOUT);
            assertThat(e.retryable()).isFalse();
        }).hasMessage(name() + ": timeout: no complete reply within the call deadline of 1 s");
        assertThat(server.takeRequest(5, TimeUnit.SECONDS)).isNotNull();
        assertThat(server.takeRequest(200, TimeUnit.MILLISECONDS)).as("one attempt").isNull();
    }

    @RepeatedTest(2)
    void interruptingTheCallerCancelsACallToAServerThatNeverAnswers() throws Exception {
        Completer completer = retrying().build();
        for (boolean streamed : new boolean[] {false, true}) {
            for (boolean virtual : new boolean[] {false, true}) {
                server.enqueue(new MockResponse.Builder().onResponseStart(SocketEffect.Stall.INSTANCE).build());
                AtomicReference<Throwable> thrown = new AtomicReference<>();
                AtomicBoolean flagKept = new AtomicBoolean();
                CountDownLatch done = new CountDownLatch(1);
                Runnable body = () -> {
                    try {
                        call(completer, streamed);
                    } catch (Throwable e) {
                        thrown.set(e);
                        flagKept.set(Thread.currentThread().isInterrupted());
                    }
                    done.countDown();
                };
                Thread caller = virtual ? Thread.ofVirtual().start(body) : Thread.ofPlatform().start(body);
                assertThat(server.takeRequest(10, TimeUnit.SECONDS)).isNotNull();
                caller.interrupt();
                assertThat(done.await(10, TimeUnit.SECONDS)).as("cancelled promptly").isTrue();
                assertThat(thrown.get()).isInstanceOf(CancellationException.class)
                        .hasMessageStartingWith(name() + ": completion cancelled");
                assertThat(flagKept).as("the interrupt flag stays set").isTrue();
            }
        }
    }

    // ---- settings -------------------------------------------------------------------------

    @Test
    void theKeyAndBaseUrlComeFromTheEnvironmentAndTheKeyNeverShows() throws Exception {
        for (String variable : keyVariables()) {
            server.enqueue(Fixtures.json(200, reply()));
            Map<String, String> env = new LinkedHashMap<>();
            env.put(variable, "env-key-42");
            env.put(baseUrlVariable(), server.url(basePath()).toString());
            Completer completer = newBuilder().model(model()).environment(env::get).retry(RetryPolicy.none()).build();
            completer.complete(Fixtures.request(hi(), List.of()));
            RecordedRequest request = server.takeRequest();
            assertThat(requestPath(request)).isEqualTo(expectedPath(false));
            assertKeySent(request, "env-key-42");
            assertThat(completer.toString()).doesNotContain("env-key-42");
        }
        assertThatThrownBy(() -> newBuilder().model("m").environment(n -> null).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(name() + ": no API key: call apiKey(...) or set the environment variable "
                        + String.join(" or ", keyVariables()));
        assertThatThrownBy(() -> newBuilder().apiKey("k").environment(n -> null).build())
                .hasMessage(name() + ": model must be set");
        assertThat(builder().toString()).doesNotContain(KEY).contains("apiKey=****");
        assertThat(builder().build().toString()).doesNotContain(KEY);
    }

    /**
     * Parses a JSON text, for fixtures.
     *
     * @param json the text
     * @return the tree
     */
    protected static JsonNode tree(String json) {
        return WireSupport.JSON.readTree(json);
    }
}
