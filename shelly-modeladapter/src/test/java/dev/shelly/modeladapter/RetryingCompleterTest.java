package dev.shelly.modeladapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.modeladapter.RetryingCompleter.RetryEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class RetryingCompleterTest {
    private static final ModelRequest CHAT = ModelRequest.of(List.of(Message.user("hi")));
    private static final ModelResponse OK = ModelResponse.of(Message.text("model", Role.ASSISTANT, "hello"));

    private final List<Duration> slept = new ArrayList<>();
    private final List<RetryEvent> events = new ArrayList<>();

    private static ModelException failure(ModelException.Kind kind, Duration retryAfter) {
        ModelException.Builder b = ModelException.builder(kind).provider("p").status(500);
        if (retryAfter != null) {
            b.retryAfter(retryAfter);
        }
        return b.build();
    }

    /** A completer that fails with the given exceptions, then answers. */
    private static Completer failingThen(AtomicInteger calls, ModelException... failures) {
        return request -> {
            int n = calls.getAndIncrement();
            if (n < failures.length) {
                throw failures[n];
            }
            return OK;
        };
    }

    private RetryingCompleter retrying(Completer delegate, RetryPolicy policy) {
        return RetryingCompleter.builder(delegate).policy(policy).sleeper(slept::add).listener(events::add)
                .random(() -> 0.5).build();
    }

    @Test
    void retriesTransientFailuresWithExponentialBackoffAndJitter() {
        AtomicInteger calls = new AtomicInteger();
        RetryPolicy policy = new RetryPolicy(4, Duration.ofMillis(100), Duration.ofMillis(300), 2.0, 0.5,
                Duration.ofSeconds(60));
        ModelResponse reply = retrying(failingThen(calls, failure(ModelException.Kind.SERVER, null),
                failure(ModelException.Kind.NETWORK, null), failure(ModelException.Kind.OVERLOADED, null)), policy)
                .complete(CHAT);
        assertThat(reply).isEqualTo(OK);
        assertThat(calls).hasValue(4);
        // 100, 200, 400 capped at 300; each shortened by jitter 0.5 * random 0.5 = 25%
        assertThat(slept).containsExactly(Duration.ofMillis(75), Duration.ofMillis(150), Duration.ofMillis(225));
        assertThat(events).extracting(RetryEvent::attempt).containsExactly(1, 2, 3);
        assertThat(events).extracting(RetryEvent::fromRetryAfter).containsOnly(false);
        assertThat(events.get(1).failure().kind()).isEqualTo(ModelException.Kind.NETWORK);
    }

    @Test
    void honoursRetryAfterExactly() {
        AtomicInteger calls = new AtomicInteger();
        ModelResponse reply = retrying(failingThen(calls, failure(ModelException.Kind.RATE_LIMITED, Duration.ofSeconds(7))),
                RetryPolicy.defaults()).complete(CHAT);
        assertThat(reply).isEqualTo(OK);
        assertThat(slept).containsExactly(Duration.ofSeconds(7));
        assertThat(events.getFirst().fromRetryAfter()).isTrue();
    }

    @Test
    void aRetryAfterLongerThanTheLimitIsReportedAtOnce() {
        AtomicInteger calls = new AtomicInteger();
        ModelException limited = failure(ModelException.Kind.RATE_LIMITED, Duration.ofMinutes(5));
        assertThatThrownBy(() -> retrying(failingThen(calls, limited), RetryPolicy.defaults()).complete(CHAT))
                .isSameAs(limited);
        assertThat(calls).hasValue(1);
        assertThat(slept).isEmpty();
    }

    @Test
    void neverRetriesPermanentFailures() {
        for (ModelException.Kind kind : List.of(ModelException.Kind.AUTHENTICATION, ModelException.Kind.PERMISSION,
                ModelException.Kind.INVALID_REQUEST, ModelException.Kind.NOT_FOUND,
                ModelException.Kind.QUOTA_EXCEEDED, ModelException.Kind.CONTEXT_LENGTH_EXCEEDED)) {
            AtomicInteger calls = new AtomicInteger();
            ModelException e = failure(kind, Duration.ofSeconds(1));
            assertThatThrownBy(() -> retrying(failingThen(calls, e), RetryPolicy.defaults()).complete(CHAT))
                    .isSameAs(e);
            assertThat(calls).as(kind.name()).hasValue(1);
        }
        assertThat(slept).isEmpty();
    }

    @Test
    void givesUpAfterMaxAttemptsWithTheLastFailure() {
        AtomicInteger calls = new AtomicInteger();
        ModelException last = failure(ModelException.Kind.SERVER, null);
        assertThatThrownBy(() -> retrying(failingThen(calls, failure(ModelException.Kind.SERVER, null), last, last),
                RetryPolicy.defaults().withMaxAttempts(2)).complete(CHAT)).isSameAs(last);
        assertThat(calls).hasValue(2);
        assertThat(slept).hasSize(1);
    }

    @Test
    void aStreamIsRetriedOnlyWhileNoContentDeltaWasDelivered() {
        AtomicInteger calls = new AtomicInteger();
        ModelException cut = failure(ModelException.Kind.NETWORK, null);
        Completer streaming = new Completer() {
            @Override
            public ModelResponse complete(ModelRequest request) {
                return OK;
            }

            @Override
            public ModelResponse complete(ModelRequest request, StreamListener l) {
                int n = calls.getAndIncrement();
                if (n == 0) {
                    l.onDelta(new Delta.UsageDelta(Usage.of(5, 1)));
                    throw cut; // before any content, usage alone delivered: retried
                }
                l.onDelta(new Delta.TextDelta("hel"));
                throw cut; // after a delta: not retried
            }
        };
        List<Delta> seen = new ArrayList<>();
        assertThatThrownBy(() -> retrying(streaming, RetryPolicy.defaults()).complete(CHAT, seen::add))
                .isSameAs(cut);
        assertThat(calls).hasValue(2);
        assertThat(seen).containsExactly(new Delta.UsageDelta(Usage.of(5, 1)), new Delta.TextDelta("hel"));
    }

    @Test
    void aStreamNobodyListensToIsRetriedEvenAfterContentArrived() {
        AtomicInteger calls = new AtomicInteger();
        ModelException cut = failure(ModelException.Kind.NETWORK, null);
        Completer streaming = new Completer() {
            @Override
            public ModelResponse complete(ModelRequest request) {
                return OK;
            }

            @Override
            public ModelResponse complete(ModelRequest request, StreamListener l) {
                if (calls.getAndIncrement() == 0) {
                    l.onDelta(new Delta.TextDelta("hel"));
                    throw cut; // content decoded, but it reached no listener: retried
                }
                l.onDelta(new Delta.TextDelta("hello"));
                return OK;
            }
        };
        assertThat(retrying(streaming, RetryPolicy.defaults()).complete(CHAT, StreamListener.NONE))
                .isSameAs(OK);
        assertThat(calls).hasValue(2);
        assertThat(events).hasSize(1);
    }

    @Test
    void anInterruptDuringTheWaitCancelsWithTheFlagKept() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch waiting = new CountDownLatch(1);
        RetryingCompleter completer = RetryingCompleter.builder(
                        failingThen(calls, failure(ModelException.Kind.SERVER, Duration.ofSeconds(30))))
                .listener(e -> waiting.countDown())
                .build();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> flag = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                completer.complete(CHAT);
            } catch (Throwable e) {
                thrown.set(e);
            }
            flag.set(Thread.currentThread().isInterrupted());
            done.countDown();
        });
        assertThat(waiting.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (t.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        t.interrupt();
        assertThat(done.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(thrown.get()).isInstanceOf(CancellationException.class)
                .hasMessageStartingWith("completion cancelled while waiting to retry after: p: server (HTTP 500)");
        assertThat(flag.get()).isTrue();
        assertThat(calls).hasValue(1);
    }

    @Test
    void policyValidatesItsFields() {
        assertThatThrownBy(() -> RetryPolicy.defaults().withMaxAttempts(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RetryPolicy.maxAttempts must be at least 1, was 0");
        assertThatThrownBy(() -> RetryPolicy.defaults().withJitter(1.5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RetryPolicy.jitter must be between 0 and 1, was 1.5");
        assertThat(RetryPolicy.none().maxAttempts()).isEqualTo(1);
        assertThat(RetryPolicy.defaults().backoff(10, 0.0)).isEqualTo(Duration.ofSeconds(8));
    }
}
