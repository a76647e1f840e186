package dev.shelly.provider.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import dev.shelly.provider.spi.internal.ByteEventDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HttpModelClientTest {
    private static final String KEY = "sk-test-0123456789abcdef";

    @StartStop
    private final MockWebServer server = new MockWebServer();

    private final List<ErrorResponse> errors = new ArrayList<>();
    private final Function<ErrorResponse, ModelException> mapper = r -> {
        errors.add(r);
        return r.toException(ErrorResponse.kindForStatus(r.status()), r.bodyExcerpt(), r.header("request-id").orElse(null))
                .build();
    };

    private HttpModelClient client(Duration read) {
        return HttpModelClient.builder("test", server.url("/v1/").toString())
                .auth(Auth.bearer(KEY))
                .header("x-extra", "yes")
                .clock(Clock.fixed(Instant.parse("1999-12-31T23:59:00Z"), ZoneOffset.UTC))
                .timeouts(Duration.ofSeconds(5), read, Duration.ZERO)
                .build();
    }

    private HttpModelClient client() {
        return client(Duration.ofSeconds(30));
    }

    @Test
    void postsJsonWithAuthAndHeadersAndReturnsTheBody() throws Exception {
        server.enqueue(new MockResponse.Builder().body("{\"ok\":true}").build());
        byte[] body = client().post("chat", "{\"a\":1}".getBytes(StandardCharsets.UTF_8), mapper);
        assertThat(new String(body, StandardCharsets.UTF_8)).isEqualTo("{\"ok\":true}");
        RecordedRequest request = server.takeRequest();
        assertThat(request.getMethod()).isEqualTo("POST");
        assertThat(request.getUrl().encodedPath()).isEqualTo("/v1/chat");
        assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer " + KEY);
        assertThat(request.getHeaders().get("x-extra")).isEqualTo("yes");
        assertThat(request.getHeaders().get("Content-Type")).isEqualTo("application/json");
        assertThat(request.getHeaders().get("Accept")).isEqualTo("application/json");
        assertThat(request.getBody().utf8()).isEqualTo("{\"a\":1}");
    }

    @Test
    void anErrorStatusGoesToTheMapperWithHeadersRetryAfterAndTheKeyRedacted() {
        server.enqueue(new MockResponse.Builder().code(429)
                .addHeader("Retry-After", "Fri, 31 Dec 1999 23:59:59 GMT")
                .addHeader("request-id", "req_1")
                .body("{\"error\":\"slow down, " + KEY + "\"}").build());
        assertThatThrownBy(() -> client().post("chat", new byte[] {'{', '}'}, mapper))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.RATE_LIMITED);
                    assertThat(e.status()).isEqualTo(429);
                    assertThat(e.retryAfter()).contains(Duration.ofSeconds(59));
                    assertThat(e.requestId()).contains("req_1");
                    assertThat(e.retryable()).isTrue();
                    assertThat(e.getMessage()).doesNotContain(KEY)
                            .isEqualTo("test: rate limited (HTTP 429): {\"error\":\"slow down, [redacted]\"} "
                                    + "[request req_1] (retry after 59000 ms)");
                });
        assertThat(errors.getFirst().header("RETRY-AFTER")).contains("Fri, 31 Dec 1999 23:59:59 GMT");
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void streamsEventsInOrderAndStopsAtTheEndEvent(boolean virtual) {
        server.enqueue(new MockResponse.Builder()
                .addHeader("Content-Type", "text/event-stream")
                .body(": a comment\n\nevent: first\ndata: one\ndata: two\n\ndata:three\r\n\r\nevent: stop\ndata: {}\n\n")
                .build());
        List<SseEvent> events = new ArrayList<>();
        stream(virtual, client(), "s", new byte[] {'{', '}'}, mapper, e -> e.event().equals("stop"), events::add);
        assertThat(events).containsExactly(new SseEvent("first", "one\ntwo"), new SseEvent("message", "three"),
                new SseEvent("stop", "{}"));
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void eventsArrivingAByteAtATimeAndLinesLongerThanABufferAreReadWhole(boolean virtual) {
        String longData = "\u00e9\u4e16\ud83d\ude00".repeat(3000); // 30,000 bytes of multi-byte characters
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/event-stream; charset=UTF-8")
                .body("event: n\u00e4me\r\ndata: h\u00e9llo\r\ndata:\r\n\r\nevent: n\u00e4me\ndata: \ud83d\ude00\n\n"
                        + "data: [DONE]\r\n\r\n")
                .throttleBody(1, 1, TimeUnit.MILLISECONDS).build());
        List<SseEvent> events = new ArrayList<>();
        stream(virtual, client(), "s", new byte[] {'{', '}'}, mapper, e -> e.data().equals("[DONE]"), events::add);
        assertThat(events).containsExactly(new SseEvent("n\u00e4me", "h\u00e9llo\n"), new SseEvent("n\u00e4me", "\ud83d\ude00"),
                new SseEvent("message", "[DONE]"));

        server.enqueue(new MockResponse.Builder().body(": c\ndata: " + longData + "\ndata: " + longData + "\n\ndata: [DONE]")
                .build());
        events.clear();
        stream(virtual, client(), "s", new byte[] {'{', '}'}, mapper, e -> e.data().equals("[DONE]"), events::add);
        assertThat(events).containsExactly(new SseEvent("message", longData + "\n" + longData),
                new SseEvent("message", "[DONE]"));
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aLastEventWithoutTrailingBlankLineIsStillDelivered(boolean virtual) {
        server.enqueue(new MockResponse.Builder().body("data: a\n\ndata: [DONE]").build());
        List<SseEvent> events = new ArrayList<>();
        stream(virtual, client(), "s", new byte[] {'{', '}'}, mapper, e -> e.data().equals("[DONE]"), events::add);
        assertThat(events).extracting(SseEvent::data).containsExactly("a", "[DONE]");
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aWholeJsonBodyInsteadOfEventsIsReturnedAndNoEventIsHandled(boolean virtual) {
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "application/json; charset=utf-8")
                .body("\n {\"id\":\"whole\"}").build());
        List<SseEvent> events = new ArrayList<>();
        byte[] body = stream(virtual, client(), "s", new byte[] {'{', '}'}, mapper, e -> false, events::add);
        assertThat(new String(body, StandardCharsets.UTF_8)).isEqualTo("\n {\"id\":\"whole\"}");
        assertThat(events).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aJsonBodyWithoutAJsonContentTypeIsReturnedWhole(boolean virtual) {
        server.enqueue(new MockResponse.Builder().removeHeader("Content-Type").body("  {\"id\":\"plain\"}").build());
        byte[] body = stream(virtual, client(), "s", new byte[] {'{', '}'}, mapper, e -> false, e -> { });
        assertThat(new String(body, StandardCharsets.UTF_8)).isEqualTo("  {\"id\":\"plain\"}");
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void eventsWithoutAContentTypeAreStillEvents(boolean virtual) {
        server.enqueue(new MockResponse.Builder().removeHeader("Content-Type").body("data: a\n\ndata: [DONE]\n\n").build());
        List<SseEvent> events = new ArrayList<>();
        byte[] body = stream(virtual, client(), "s", new byte[] {'{', '}'}, mapper, e -> e.data().equals("[DONE]"), events::add);
        assertThat(body).isNull();
        assertThat(events).extracting(SseEvent::data).containsExactly("a", "[DONE]");
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aDeclaredEventStreamIsNeverTakenForABody(boolean virtual) {
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/event-stream").body("{\"id\":1}").build());
        assertThatThrownBy(() -> stream(virtual, client(), "s", new byte[] {'{', '}'}, mapper, e -> false, e -> { }))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.INVALID_RESPONSE);
                    assertThat(e.retryable()).isFalse();
                })
                .hasMessage("test: invalid response: the reply to a stream request is not an event stream: {\"id\":1}");
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aLastEventAfterForeignLinesStillMakesTheBodyAStream(boolean virtual) {
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/event-stream")
                .body("x-proxy-note\ndata: a").build());
        List<SseEvent> events = new ArrayList<>();
        assertThatThrownBy(() -> stream(virtual, client(), "s", new byte[] {'{', '}'}, mapper, e -> false, events::add))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.NETWORK));
        assertThat(events).extracting(SseEvent::data).containsExactly("a");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " \t", "\u3000\u2003", ": comment \u00e9", "data", "data: \u00e9", "event: x", "id:",
        "retry: 5"})
    void aBodyOfLinesAnEventStreamCanHoldIsAStreamEvenWithoutAnEvent(String line) {
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/event-stream").body(line + "\n").build());
        assertThatThrownBy(() -> client().stream("s", new byte[] {'{', '}'}, mapper, e -> false, e -> { }))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.NETWORK));
    }

    @ParameterizedTest
    @ValueSource(strings = {"\u00a0", "x \u3000", "donn\u00e9es: 1", "dat\u00e1: 1", "datax: 1", "Data: 1", "ids"})
    void aBodyWithALineNoEventStreamHoldsAndNoEventIsNotAStream(String line) {
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/event-stream").body(line + "\n").build());
        assertThatThrownBy(() -> client().stream("s", new byte[] {'{', '}'}, mapper, e -> false, e -> { }))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.INVALID_RESPONSE))
                .hasMessageStartingWith("test: invalid response: the reply to a stream request is not an event stream: ");
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aStreamOfCommentsThatIsCutIsANetworkFailure(boolean virtual) {
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/event-stream")
                .body(": keep-alive\n\n: keep-alive\n\n").build());
        assertThatThrownBy(() -> stream(virtual, client(), "s", new byte[] {'{', '}'}, mapper, e -> false, e -> { }))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.NETWORK))
                .hasMessageContaining("the server closed the stream before the reply was complete");
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aStreamThatEndsBeforeItsEndEventIsANetworkFailure(boolean virtual) {
        server.enqueue(new MockResponse.Builder().body("data: a\n\n").build());
        List<SseEvent> events = new ArrayList<>();
        assertThatThrownBy(() -> stream(virtual, client(), "s", new byte[] {'{', '}'}, mapper, e -> false, events::add))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.NETWORK);
                    assertThat(e.getMessage())
                            .isEqualTo("test: network (HTTP 200): the server closed the stream before the reply was complete");
                    assertThat(e.status()).as("the server was reached").isEqualTo(200);
                    assertThat(e.retryable()).isTrue();
                });
        assertThat(events).hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aConnectionDroppedMidStreamIsANetworkFailure(boolean virtual) {
        server.enqueue(new MockResponse.Builder()
                .body("data: a\n\ndata: b\n\n")
                .setHeader("Content-Length", 1000)
                .onResponseEnd(new SocketEffect.CloseSocket(true, false, false))
                .build());
        List<SseEvent> events = new ArrayList<>();
        assertThatThrownBy(() -> stream(virtual, client(), "s", new byte[] {'{', '}'}, mapper, e -> false, events::add))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.NETWORK);
                    assertThat(e.getCause()).isInstanceOf(java.io.IOException.class);
                    assertThat(e.status()).as("the server was reached").isEqualTo(200);
                    assertThat(e.retryable()).isTrue();
                    assertThat(e.getMessage()).startsWith(
                            "test: network (HTTP 200): the server closed the stream before the reply was complete (");
                });
    }

    @Test
    void aServerThatFallsSilentTimesOut() {
        server.enqueue(new MockResponse.Builder().onResponseStart(SocketEffect.Stall.INSTANCE).build());
        assertThatThrownBy(() -> client(Duration.ofMillis(200)).post("chat", new byte[] {'{', '}'}, mapper))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.TIMEOUT);
                    assertThat(e.retryable()).isTrue();
                });
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anErrorStatusOnAStreamGoesToTheMapper(boolean virtual) {
        server.enqueue(new MockResponse.Builder().code(529).body("overloaded").build());
        assertThatThrownBy(() -> stream(virtual, client(), "s", new byte[] {'{', '}'}, mapper, e -> false, e -> { }))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.OVERLOADED));
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aHandlerFailureCancelsTheStreamAndIsRethrown(boolean virtual) {
        server.enqueue(new MockResponse.Builder().body("data: a\n\n").throttleBody(9, 1, TimeUnit.HOURS).build());
        IllegalStateException boom = new IllegalStateException("listener failed");
        assertThatThrownBy(() -> stream(virtual, client(), "s", new byte[] {'{', '}'}, mapper, e -> false, e -> {
            throw boom;
        })).isSameAs(boom);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void interruptingAWaitingPostCancelsTheCallPromptly(boolean virtual) throws Exception {
        server.enqueue(new MockResponse.Builder().onResponseStart(SocketEffect.Stall.INSTANCE).build());
        assertCancelledPromptly(virtual, () -> client().post("chat", new byte[] {'{', '}'}, mapper));
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true, false, true})
    void interruptingAWaitingStreamCancelsTheCallPromptly(boolean virtual) throws Exception {
        // The first event arrives, then the server never sends another byte.
        server.enqueue(new MockResponse.Builder().body("data: a\n\ndata: b\n\n").throttleBody(9, 1, TimeUnit.HOURS)
                .build());
        CountDownLatch firstEvent = new CountDownLatch(1);
        assertCancelledPromptly(virtual, firstEvent,
                () -> client().stream("s", new byte[] {'{', '}'}, mapper, e -> false, e -> firstEvent.countDown()));
    }

    @Test
    void anAlreadyInterruptedCallerSendsNothing() {
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> client().post("chat", new byte[] {'{', '}'}, mapper))
                    .isInstanceOf(CancellationException.class);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(server.getRequestCount()).isZero();
    }

    /**
     * A stream read on a platform thread (by a virtual thread of its own, the events handed over)
     * or on a virtual thread (inline); its failure rethrown as thrown.
     */
    private byte[] stream(boolean virtual, HttpModelClient client, String path, byte[] json,
            Function<ErrorResponse, ModelException> errors, Predicate<SseEvent> isEnd, Consumer<SseEvent> handler) {
        return onThread(virtual, () -> client.stream(path, json, errors, isEnd, handler));
    }

    /** Runs a call on a virtual thread (or the caller's), rethrowing what it threw. */
    static <T> T onThread(boolean virtual, Supplier<T> call) {
        if (!virtual) {
            return call.get();
        }
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = Thread.ofVirtual().start(() -> {
            try {
                result.set(call.get());
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        try {
            t.join();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        if (failure.get() instanceof RuntimeException e) {
            throw e;
        }
        if (failure.get() instanceof Error e) {
            throw e;
        }
        return result.get();
    }

    @Test
    void aByteDecoderTakesTheEventsOfAStreamReadOnAVirtualThread() {
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/event-stream")
                .body("event: first\ndata: one\r\ndata: tw\u00f6\n\ndata:three\n\ndata:\r\n\r\n: note\nevent: stop\ndata: {}\n\nz")
                .build());
        List<SseEvent> strings = new ArrayList<>();
        List<SseEvent> bytes = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        ByteEventDecoder decoder = new ByteEventDecoder() {
            @Override
            public void onEvent(String event, byte[] data, int offset, int length) {
                bytes.add(new SseEvent(event, new String(data, offset, length, StandardCharsets.UTF_8)));
                threads.add(Thread.currentThread());
            }

            @Override
            public boolean isEnd(String event, byte[] data, int offset, int length) {
                return event.equals("stop");
            }
        };
        Thread caller = Thread.ofVirtual().unstarted(() -> client().stream("s", new byte[] {'{', '}'}, mapper,
                e -> false, strings::add, () -> false, decoder));
        caller.start();
        assertThat(joined(caller)).isTrue();
        assertThat(strings).as("the decoder took them all").isEmpty();
        assertThat(bytes).containsExactly(new SseEvent("first", "one\ntw\u00f6"), new SseEvent("message", "three"),
                new SseEvent("message", ""), new SseEvent("stop", "{}"));
        assertThat(threads).as("handled on the calling thread").containsOnly(caller);
    }

    @Test
    void onAPlatformThreadTheEventsGoToTheHandlerAsStrings() {
        server.enqueue(new MockResponse.Builder().body("data: a\n\ndata: [DONE]\n\n").build());
        List<SseEvent> strings = new ArrayList<>();
        ByteEventDecoder decoder = new ByteEventDecoder() {
            @Override
            public void onEvent(String event, byte[] data, int offset, int length) {
                throw new AssertionError("not on a platform thread");
            }

            @Override
            public boolean isEnd(String event, byte[] data, int offset, int length) {
                throw new AssertionError("not on a platform thread");
            }
        };
        client().stream("s", new byte[] {'{', '}'}, mapper, e -> e.data().equals("[DONE]"), strings::add, () -> false,
                decoder);
        assertThat(strings).extracting(SseEvent::data).containsExactly("a", "[DONE]");
    }

    private static boolean joined(Thread t) {
        try {
            return t.join(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private void assertCancelledPromptly(boolean virtual, Runnable call) throws Exception {
        assertCancelledPromptly(virtual, null, call);
    }

    private void assertCancelledPromptly(boolean virtual, CountDownLatch ready, Runnable call) throws Exception {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> flag = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        Runnable task = () -> {
            try {
                call.run();
            } catch (Throwable e) {
                thrown.set(e);
            }
            flag.set(Thread.currentThread().isInterrupted());
            done.countDown();
        };
        Thread t = virtual ? Thread.ofVirtual().start(task) : Thread.ofPlatform().start(task);
        if (ready != null) {
            assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
        } else {
            server.takeRequest(10, TimeUnit.SECONDS); // the request reached the server, which now stalls
        }
        t.interrupt();
        assertThat(done.await(10, TimeUnit.SECONDS)).as("returned after the interrupt").isTrue();
        assertThat(thrown.get()).isInstanceOf(CancellationException.class).hasMessage("test: completion cancelled");
        assertThat(flag.get()).as("interrupt flag kept").isTrue();
    }

    @Test
    void toStringNeverShowsTheKey() {
        assertThat(client().toString()).doesNotContain(KEY).contains("Auth[Authorization: Bearer ****]");
        assertThat(Auth.header("x-api-key", KEY).toString()).isEqualTo("Auth[x-api-key: ****]");
        assertThat(Auth.none().toString()).isEqualTo("Auth[none]");
        assertThatThrownBy(() -> Auth.bearer("abc\ndef")).hasMessageNotContaining("abc")
                .hasMessage("Auth key for header Authorization contains a control or non-ASCII character (a stray newline?)");
    }

    private HttpModelClient deadlineClient(Duration deadline) {
        return HttpModelClient.builder("test", server.url("/v1/").toString())
                .timeouts(Duration.ofSeconds(5), Duration.ofSeconds(30), deadline)
                .build();
    }

    private static MockResponse trickle(String body) {
        return new MockResponse.Builder().addHeader("Content-Type", "text/event-stream").body(body)
                .throttleBody(1, 20, TimeUnit.MILLISECONDS).build();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aTricklingServerIsCutOffAtTheCallDeadlineWhenPosting(boolean virtual) {
        server.enqueue(trickle("{\"x\":\"" + "a".repeat(10_000) + "\"}"));
        long start = System.nanoTime();
        assertThatThrownBy(() -> onThread(virtual, () -> deadlineClient(Duration.ofMillis(400)).post("chat",
                new byte[] {'{', '}'}, mapper)))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.TIMEOUT);
                    assertThat(e.retryable()).as("a retry would wait as long").isFalse();
                })
                .hasMessage("test: timeout: no complete reply within the call deadline of 400 ms");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aTricklingStreamIsCutOffAtTheCallDeadline(boolean virtual) {
        server.enqueue(trickle(": " + "x".repeat(10_000) + "\n\n"));
        long start = System.nanoTime();
        assertThatThrownBy(() -> stream(virtual, deadlineClient(Duration.ofMillis(400)), "s", new byte[] {'{', '}'}, mapper,
                e -> false, e -> { }))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.TIMEOUT);
                    assertThat(e.retryable()).isFalse();
                })
                .hasMessage("test: timeout: no complete reply within the call deadline of 400 ms");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
    }

    @Test
    void everyCallHasADeadlineByDefault() {
        assertThat(HttpModelClient.DEFAULT_CALL_TIMEOUT).isEqualTo(Duration.ofMinutes(10));
        assertThat(HttpModelClient.builder("test", "http://localhost/v1").build().toString())
                .contains("connectTimeout=PT10S, readTimeout=PT10M, callTimeout=PT10M");
    }

    @ParameterizedTest
    @ValueSource(strings = {"text/html; charset=utf-8", "text/plain", ""})
    void anHtmlPageInsteadOfAStreamIsAnInvalidResponse(String type) {
        MockResponse.Builder page = new MockResponse.Builder().body("\n<!DOCTYPE html>\n<html><body>Sign in to "
                + "the proxy</body></html>");
        if (type.isEmpty()) {
            page.removeHeader("Content-Type");
        } else {
            page.addHeader("Content-Type", type);
        }
        server.enqueue(page.build());
        List<SseEvent> events = new ArrayList<>();
        assertThatThrownBy(() -> client().stream("s", new byte[] {'{', '}'}, mapper, e -> false, events::add))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.INVALID_RESPONSE);
                    assertThat(e.retryable()).isFalse();
                })
                .hasMessage("test: invalid response: the reply is an HTML page, not a model reply: <!DOCTYPE html> "
                        + "<html><body>Sign in to the proxy</body></html>");
        assertThat(events).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aPlainTextBodyInsteadOfAStreamIsAnInvalidResponse(boolean virtual) {
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/plain").body("Service unavailable\n")
                .build());
        assertThatThrownBy(() -> stream(virtual, client(), "s", new byte[] {'{', '}'}, mapper, e -> false, e -> { }))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.INVALID_RESPONSE))
                .hasMessage("test: invalid response: the reply to a stream request is not an event stream: "
                        + "Service unavailable");
    }

    @Test
    void anEchoedKeyOrHeaderValueNeverReachesAnErrorOrAnExcerpt() {
        HttpModelClient client = HttpModelClient.builder("test", server.url("/v1/").toString())
                .auth(Auth.bearer(KEY)).header("x-org-token", "org-secret-value-42").build();
        server.enqueue(new MockResponse.Builder().code(500).addHeader("request-id", "req " + KEY)
                .body("bad key " + KEY + " and org-secret-value-42").build());
        assertThatThrownBy(() -> client.post("chat", new byte[] {'{', '}'}, mapper))
                .hasMessage("test: server (HTTP 500): bad key [redacted] and [redacted] [request req [redacted]]");
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/html").body("<p>" + KEY + "</p>").build());
        assertThatThrownBy(() -> client.stream("s", new byte[] {'{', '}'}, mapper, e -> false, e -> { }))
                .hasMessage("test: invalid response: the reply is an HTML page, not a model reply: <p>[redacted]</p>");
    }

    @Test
    void theMapperClassifiesTheBodyAsSentAndOnlyTheExceptionIsRedacted() {
        server.enqueue(new MockResponse.Builder().code(400).addHeader("request-id", "req " + KEY)
                .body("context overflow for " + KEY).build());
        Function<ErrorResponse, ModelException> classifier = r -> {
            errors.add(r);
            Kind kind = r.body().equals("context overflow for " + KEY) ? Kind.CONTEXT_LENGTH_EXCEEDED : Kind.INVALID_REQUEST;
            return r.toException(kind, r.body(), r.header("request-id").orElse(null)).build();
        };
        assertThatThrownBy(() -> client().post("chat", new byte[] {'{', '}'}, classifier))
                .isInstanceOfSatisfying(ModelException.class,
                        e -> assertThat(e.kind()).isEqualTo(Kind.CONTEXT_LENGTH_EXCEEDED))
                .hasMessage("test: context length exceeded (HTTP 400): the request does not fit the context window of "
                        + "the model: context overflow for [redacted] [request req [redacted]]");
        assertThat(errors.getFirst().header("request-id")).contains("req " + KEY);
    }

    @ParameterizedTest
    @ValueSource(strings = {"x", "sk-1234"})
    void aKeyShorterThanEightCharactersIsNotSearchedForInErrorTexts(String key) {
        HttpModelClient client = HttpModelClient.builder("test", server.url("/v1/").toString())
                .auth(Auth.bearer(key)).build();
        server.enqueue(new MockResponse.Builder().code(400)
                .body("request exceeds the context; sk-1234 is not an example").build());
        assertThatThrownBy(() -> client.post("chat", new byte[] {'{', '}'}, mapper))
                .hasMessage("test: invalid request (HTTP 400): request exceeds the context; sk-1234 is not an example");
    }

    @Test
    void aKeyOfEightCharactersIsRedacted() {
        HttpModelClient client = HttpModelClient.builder("test", server.url("/v1/").toString())
                .auth(Auth.bearer("sk-12345")).build();
        server.enqueue(new MockResponse.Builder().code(400).body("bad key sk-12345").build());
        assertThatThrownBy(() -> client.post("chat", new byte[] {'{', '}'}, mapper))
                .hasMessage("test: invalid request (HTTP 400): bad key [redacted]");
    }

    @Test
    void redactRemovesSecretsFromTheMessageCausesAndSuppressed() {
        HttpModelClient client = HttpModelClient.builder("test", "https://u:url-password-1@h/v1?key=query-secret-9")
                .auth(Auth.bearer(KEY)).build();
        java.io.IOException cause = new java.io.IOException("token " + KEY);
        cause.addSuppressed(new IllegalStateException("query-secret-9"));
        ModelException original = ModelException.builder(Kind.INVALID_RESPONSE).provider("test")
                .providerMessage("echo " + KEY + " url-password-1").requestId("r-" + KEY).cause(cause).build();
        original.addSuppressed(new RuntimeException("suppressed " + KEY));
        ModelException redacted = client.redact(original);
        assertThat(redacted.kind()).isEqualTo(Kind.INVALID_RESPONSE);
        assertThat(redacted.getMessage()).isEqualTo("test: invalid response: echo [redacted] [redacted] "
                + "[request r-[redacted]]");
        assertThat(redacted.getCause().getMessage()).isEqualTo("java.io.IOException: token [redacted]");
        assertThat(redacted.getCause().getSuppressed()[0].getMessage())
                .isEqualTo("java.lang.IllegalStateException: [redacted]");
        assertThat(redacted.getSuppressed()[0].getMessage()).isEqualTo("java.lang.RuntimeException: suppressed [redacted]");
        assertThat(redacted.getStackTrace()).isEqualTo(original.getStackTrace());
        ModelException clean = ModelException.builder(Kind.NETWORK).providerMessage("nothing secret").build();
        assertThat(client.redact(clean)).isSameAs(clean);
    }

    @Test
    void toStringAndErrorsMaskTheBaseUrlsQueryAndUserInfo() {
        HttpModelClient client = HttpModelClient.builder("test", "https://bob:pw-secret@host.example/v1?key=abc").build();
        assertThat(client.toString()).contains("https://***@host.example/v1?key=***").doesNotContain("pw-secret", "abc");
        assertThatThrownBy(() -> HttpModelClient.builder("test", "ftp://bob:pw-secret@host/x?key=abc"))
                .hasMessage("test: base URL 'ftp://***@host/x?key=***' is not an http or https URL");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ab\ncd", "ab\rcd", "ab\u0000cd", "ab\u001bcd", "ab\u007fcd"})
    void aHeaderValueWithAControlCharacterIsRefusedWhenSetNamingTheHeaderNotTheValue(String value) {
        assertThatThrownBy(() -> HttpModelClient.builder("test", "http://localhost/v1").header("X-Token", value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("test: the value of header X-Token has a control character at index 2 (a stray newline?);"
                        + " the value is not shown");
    }

    @Test
    void aHeaderThatHttpCannotCarryIsRefusedWhenSet() {
        assertThatThrownBy(() -> HttpModelClient.builder("test", "http://localhost/v1").header("X-Token", "abé"))
                .hasMessage("test: the value of header X-Token has a non-ASCII character at index 2, which HTTP headers"
                        + " cannot carry; the value is not shown");
        assertThatThrownBy(() -> HttpModelClient.builder("test", "http://localhost/v1").header("X Token\n", "v"))
                .hasMessage("test: header name 'X Token\\u000a' is not a valid HTTP header name: it may hold letters,"
                        + " digits and !#$%&'*+-.^_`|~ only");
        assertThat(HttpModelClient.builder("test", "http://localhost/v1").header("X-Tab", "a\tb").build()).isNotNull();
    }

    @Test
    void retryAfterParsing() {
        Instant now = Instant.parse("1999-12-31T23:59:00Z");
        assertThat(ErrorResponse.parseRetryAfter(null, "7", now)).contains(Duration.ofSeconds(7));
        assertThat(ErrorResponse.parseRetryAfter(null, "1.5", now)).contains(Duration.ofMillis(1500));
        assertThat(ErrorResponse.parseRetryAfter("1574", "2", now)).contains(Duration.ofMillis(1574));
        assertThat(ErrorResponse.parseRetryAfter("junk", "2", now)).contains(Duration.ofSeconds(2));
        assertThat(ErrorResponse.parseRetryAfter(null, "Fri, 31 Dec 1999 23:59:59 GMT", now))
                .contains(Duration.ofSeconds(59));
        assertThat(ErrorResponse.parseRetryAfter(null, "Fri, 31 Dec 1999 23:00:00 GMT", now)).contains(Duration.ZERO);
        assertThat(ErrorResponse.parseRetryAfter(null, "soon", now)).isEmpty();
        assertThat(ErrorResponse.parseRetryAfter(null, "-3", now)).isEmpty();
        assertThat(ErrorResponse.parseRetryAfter(null, null, now)).isEmpty();
    }

    @Test
    void onlyTheListedStatusesAreRetryable() {
        for (int status : new int[] {408, 429, 500, 502, 503, 504, 529}) {
            ErrorResponse r = new ErrorResponse("p", status, null, "", null);
            assertThat(r.toException(ErrorResponse.kindForStatus(status), null, null).build().retryable())
                    .as("status %d", status).isTrue();
        }
        for (int status : new int[] {400, 401, 403, 404, 409, 413, 422, 501}) {
            ErrorResponse r = new ErrorResponse("p", status, null, "", null);
            assertThat(r.toException(ErrorResponse.kindForStatus(status), null, null).build().retryable())
                    .as("status %d", status).isFalse();
        }
        ErrorResponse noRetry = new ErrorResponse("p", 503, java.util.Map.of("X-Should-Retry", "false"), "", null);
        assertThat(noRetry.toException(Kind.SERVER, null, null).build().retryable()).isFalse();
    }
}
