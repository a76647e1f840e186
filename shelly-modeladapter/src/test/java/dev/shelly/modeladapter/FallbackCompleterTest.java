package dev.shelly.modeladapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.modeladapter.FallbackCompleter.FallbackEvent;
import dev.shelly.modeladapter.ModelOptions.Reasoning;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FallbackCompleterTest {
    private static final ModelRequest CHAT = ModelRequest.of(List.of(Message.user("hi")));

    private final List<FallbackEvent> events = new CopyOnWriteArrayList<>();
    private final List<Duration> slept = new ArrayList<>();
    private final MutableClock clock = new MutableClock();

    /** A clock the test moves by hand. */
    static final class MutableClock extends Clock {
        private volatile Instant now = Instant.parse("2026-11-27T12:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    /** A provider that answers as itself, or throws what the test sets, counting its calls. */
    static final class Provider implements Completer {
        final String name;
        final AtomicInteger calls = new AtomicInteger();
        volatile ModelException failure;

        Provider(String name) {
            this.name = name;
        }

        @Override
        public ModelResponse complete(ModelRequest request) {
            calls.incrementAndGet();
            if (failure != null) {
                throw failure;
            }
            return new ModelResponse(Message.text(name, Role.ASSISTANT, "from " + name), Usage.of(10, 2), null, null,
                    name + "-model", "r-" + name, name);
        }

        @Override
        public ModelTarget target() {
            return new ModelTarget(name, name + "-model");
        }
    }

    private static ModelException failure(ModelException.Kind kind) {
        return ModelException.builder(kind).provider("p").status(500).providerMessage("went wrong").build();
    }

    private FallbackCompleter fallback(Provider... providers) {
        FallbackCompleter.Builder b = FallbackCompleter.builder().listener(events::add).sleeper(slept::add);
        for (Provider p : providers) {
            b.provider(p.name, p, CircuitBreaker.of(3, Duration.ofSeconds(30), clock));
        }
        return b.build();
    }

    @Test
    void movesOnForEveryKindAnotherProviderCanFix() {
        for (ModelException.Kind kind : List.of(ModelException.Kind.OVERLOADED, ModelException.Kind.SERVER,
                ModelException.Kind.RATE_LIMITED, ModelException.Kind.QUOTA_EXCEEDED, ModelException.Kind.TIMEOUT,
                ModelException.Kind.NETWORK, ModelException.Kind.AUTHENTICATION, ModelException.Kind.PERMISSION)) {
            events.clear();
            Provider a = new Provider("anthropic");
            Provider b = new Provider("openai");
            a.failure = failure(kind);

            ModelResponse reply = fallback(a, b).complete(CHAT);

            assertThat(reply.provider()).as("%s", kind).isEqualTo("openai");
            assertThat(reply.usage()).isEqualTo(Usage.of(10, 2));
            assertThat(reply.model()).isEqualTo("openai-model");
            assertThat(events).containsExactly(new FallbackEvent("anthropic", "openai", a.failure));
            assertThat(events.getFirst().reason()).isEqualTo(kind.name().toLowerCase(java.util.Locale.ROOT));
        }
        assertThat(slept).isEmpty();
    }

    @Test
    void neverMovesOnForWhatTheCallerMustSee() {
        for (ModelException.Kind kind : List.of(ModelException.Kind.INVALID_REQUEST, ModelException.Kind.CONTENT_FILTER,
                ModelException.Kind.CONTEXT_LENGTH_EXCEEDED, ModelException.Kind.NOT_FOUND,
                ModelException.Kind.INVALID_RESPONSE)) {
            Provider a = new Provider("anthropic");
            Provider b = new Provider("openai");
            a.failure = failure(kind);

            assertThatThrownBy(() -> fallback(a, b).complete(CHAT)).as("%s", kind).isSameAs(a.failure);
            assertThat(b.calls).hasValue(0);
        }
        assertThat(events).isEmpty();
    }

    @Test
    void aFallbackThatCannotTakeTheRequestsOptionsIsPassedOver() {
        Provider a = new Provider("anthropic");
        Provider b = new Provider("openai");
        Provider c = new Provider("gemini");
        a.failure = failure(ModelException.Kind.OVERLOADED);
        b.failure = ModelException.builder(ModelException.Kind.INVALID_REQUEST).provider("openai")
                .providerMessage("Reasoning.budget is Anthropic's; use Reasoning.effort").build();

        assertThat(fallback(a, b, c).complete(CHAT).provider()).isEqualTo("gemini");
        assertThat(events).extracting(FallbackEvent::reason).containsExactly("overloaded", "invalid_request");

        assertThatThrownBy(() -> fallback(a, b).complete(CHAT)).as("the failure that started the fallback")
                .isSameAs(a.failure);
        ModelException sent = failure(ModelException.Kind.INVALID_REQUEST);
        b.failure = sent;
        assertThatThrownBy(() -> fallback(a, b, c).complete(CHAT)).as("a refusal after sending is the caller's")
                .isSameAs(sent);
    }

    @Test
    void cancellationStopsTheChain() {
        Provider b = new Provider("openai");
        Completer cancelled = request -> {
            Thread.currentThread().interrupt();
            throw new CancellationException("cancelled");
        };
        FallbackCompleter f = FallbackCompleter.builder().provider("a", cancelled).provider("b", b).build();
        try {
            assertThatThrownBy(() -> f.complete(CHAT)).isInstanceOf(CancellationException.class);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(b.calls).hasValue(0);
    }

    @Test
    void waitsOnceForAShortRateLimitThenMovesOnForALongOne() {
        Provider a = new Provider("anthropic");
        Provider b = new Provider("openai");
        AtomicInteger calls = new AtomicInteger();
        Completer shortLimit = request -> {
            if (calls.getAndIncrement() == 0) {
                throw ModelException.builder(ModelException.Kind.RATE_LIMITED).retryAfter(Duration.ofSeconds(2)).build();
            }
            return a.complete(request);
        };
        FallbackCompleter f = FallbackCompleter.builder().provider("anthropic", shortLimit).provider("openai", b)
                .rateLimitWait(Duration.ofSeconds(5)).sleeper(slept::add).listener(events::add).build();

        assertThat(f.complete(CHAT).provider()).isEqualTo("anthropic");
        assertThat(slept).containsExactly(Duration.ofSeconds(2));
        assertThat(events).isEmpty();

        a.failure = ModelException.builder(ModelException.Kind.RATE_LIMITED).retryAfter(Duration.ofSeconds(60)).build();
        assertThat(f.complete(CHAT).provider()).isEqualTo("openai");
        assertThat(slept).containsExactly(Duration.ofSeconds(2));
        assertThat(events).extracting(FallbackEvent::reason).containsExactly("rate_limited");
    }

    @Test
    void aProviderFailingThreeTimesIsSkippedForTheCoolDownThenOneProbeDecides() {
        Provider a = new Provider("anthropic");
        Provider b = new Provider("openai");
        FallbackCompleter f = fallback(a, b);
        a.failure = failure(ModelException.Kind.OVERLOADED);
        for (int i = 0; i < 3; i++) {
            assertThat(f.complete(CHAT).provider()).isEqualTo("openai");
        }
        assertThat(a.calls).hasValue(3);

        events.clear();
        clock.advance(Duration.ofSeconds(29));
        assertThat(f.complete(CHAT).provider()).isEqualTo("openai");
        assertThat(a.calls).as("skipped while open").hasValue(3);
        assertThat(events).containsExactly(new FallbackEvent("anthropic", "openai", null));
        assertThat(events.getFirst().reason()).isEqualTo("circuit_open");

        clock.advance(Duration.ofSeconds(1));
        assertThat(f.complete(CHAT).provider()).as("a failed probe").isEqualTo("openai");
        assertThat(a.calls).hasValue(4);
        assertThat(f.complete(CHAT).provider()).isEqualTo("openai");
        assertThat(a.calls).as("open again for a whole cool-down after the failed probe").hasValue(4);

        clock.advance(Duration.ofSeconds(30));
        a.failure = null;
        assertThat(f.complete(CHAT).provider()).as("a good probe").isEqualTo("anthropic");
        assertThat(f.complete(CHAT).provider()).isEqualTo("anthropic");
        assertThat(a.calls).hasValue(6);
    }

    @Test
    void aSuccessInBetweenStartsTheCountAgain() {
        Provider a = new Provider("anthropic");
        Provider b = new Provider("openai");
        FallbackCompleter f = fallback(a, b);
        for (int round = 0; round < 3; round++) {
            a.failure = failure(ModelException.Kind.SERVER);
            f.complete(CHAT);
            f.complete(CHAT);
            a.failure = null;
            assertThat(f.complete(CHAT).provider()).isEqualTo("anthropic");
        }
        assertThat(a.calls).hasValue(9);
    }

    @Test
    void whileOneProbeIsOutConcurrentRequestsSkipTheProvider() throws Exception {
        CountDownLatch probing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger primaryCalls = new AtomicInteger();
        Provider b = new Provider("openai");
        Completer slowProbe = request -> {
            primaryCalls.incrementAndGet();
            probing.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new CancellationException();
            }
            return new Provider("anthropic").complete(request);
        };
        CircuitBreaker breaker = CircuitBreaker.of(1, Duration.ofSeconds(30), clock);
        breaker.onFailure();
        clock.advance(Duration.ofSeconds(30));
        FallbackCompleter f = FallbackCompleter.builder().provider("anthropic", slowProbe, breaker).provider("openai", b)
                .build();
        try (ExecutorService pool = Executors.newFixedThreadPool(9)) {
            Future<ModelResponse> probe = pool.submit(() -> f.complete(CHAT));
            assertThat(probing.await(5, TimeUnit.SECONDS)).isTrue();
            List<Future<ModelResponse>> others = new ArrayList<>();
            CountDownLatch start = new CountDownLatch(1);
            for (int i = 0; i < 8; i++) {
                others.add(pool.submit(() -> {
                    start.await();
                    return f.complete(CHAT);
                }));
            }
            start.countDown();
            for (Future<ModelResponse> other : others) {
                assertThat(other.get(5, TimeUnit.SECONDS).provider()).isEqualTo("openai");
            }
            release.countDown();
            assertThat(probe.get(5, TimeUnit.SECONDS).provider()).isEqualTo("anthropic");
        }
        assertThat(primaryCalls).hasValue(1);
        assertThat(breaker.isOpen()).isFalse();
    }

    @Test
    void whenEveryProviderFailsTheLastFailureIsThrown() {
        Provider a = new Provider("anthropic");
        Provider b = new Provider("openai");
        a.failure = failure(ModelException.Kind.OVERLOADED);
        b.failure = failure(ModelException.Kind.QUOTA_EXCEEDED);

        assertThatThrownBy(() -> fallback(a, b).complete(CHAT)).isSameAs(b.failure);
        assertThat(events).extracting(FallbackEvent::from, FallbackEvent::to)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("anthropic", "openai"));
    }

    @Test
    void whenEveryCircuitIsOpenTheCallerIsToldWhenToComeBack() {
        Provider a = new Provider("anthropic");
        Provider b = new Provider("openai");
        a.failure = failure(ModelException.Kind.OVERLOADED);
        b.failure = failure(ModelException.Kind.OVERLOADED);
        FallbackCompleter f = fallback(a, b);
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> f.complete(CHAT)).isSameAs(b.failure);
        }
        clock.advance(Duration.ofSeconds(10));

        assertThatThrownBy(() -> f.complete(CHAT)).isInstanceOfSatisfying(ModelException.class, e -> {
            assertThat(e.kind()).isEqualTo(ModelException.Kind.OVERLOADED);
            assertThat(e.retryAfter()).contains(Duration.ofSeconds(20));
            assertThat(e.getMessage()).isEqualTo("overloaded: every provider is skipped after consecutive failures "
                    + "(circuit open): anthropic, openai; the next probe may go in 20000 ms (retry after 20000 ms)");
        });
        assertThat(a.calls).hasValue(3);
        assertThat(b.calls).hasValue(3);
    }

    /** A provider that streams one delta, then breaks. */
    private static Completer cutAfter(Delta delta) {
        return new Completer() {
            @Override
            public ModelResponse complete(ModelRequest request) {
                throw new AssertionError("this provider is only called streaming");
            }

            @Override
            public ModelResponse complete(ModelRequest request, StreamListener listener) {
                listener.onDelta(delta);
                throw failure(ModelException.Kind.NETWORK);
            }
        };
    }

    @Test
    void aStreamMovesOnOnlyWhileNoContentHasReachedTheListener() {
        List<Delta> seen = new ArrayList<>();
        Provider b = new Provider("openai");
        FallbackCompleter f = FallbackCompleter.builder().provider("a", cutAfter(new Delta.UsageDelta(Usage.of(5, 0))))
                .provider("openai", b).build();
        assertThat(f.complete(CHAT, seen::add).provider()).as("usage is not content").isEqualTo("openai");

        Provider c = new Provider("gemini");
        FallbackCompleter g = FallbackCompleter.builder().provider("a", cutAfter(new Delta.TextDelta("Hel")))
                .provider("gemini", c).build();
        assertThatThrownBy(() -> g.complete(CHAT, seen::add)).isInstanceOf(ModelException.class);
        assertThat(c.calls).hasValue(0);
    }

    @Test
    void ofNamesProvidersByTheirTarget() {
        FallbackCompleter f = FallbackCompleter.of(new Provider("anthropic"), new Provider("openai"),
                request -> ModelResponse.of(Message.text("x", Role.ASSISTANT, "y")));
        assertThat(f.providers()).containsExactly("anthropic", "openai", "completer 3");
        assertThat(f.target()).isEqualTo(new ModelTarget("anthropic", "anthropic-model"));
    }

    @Test
    void refusesWhatCannotWork() {
        assertThatThrownBy(() -> FallbackCompleter.builder().provider("a", new Provider("a")).build())
                .hasMessage("FallbackCompleter needs at least two providers, got 1");
        assertThatThrownBy(() -> FallbackCompleter.builder().provider("a", new Provider("a")).provider("a", new Provider("b")))
                .hasMessage("FallbackCompleter provider 'a' is named twice");
        assertThatThrownBy(() -> CircuitBreaker.of(0, Duration.ofSeconds(1)))
                .hasMessage("CircuitBreaker.failureThreshold must be at least 1, was 0");
    }
}
