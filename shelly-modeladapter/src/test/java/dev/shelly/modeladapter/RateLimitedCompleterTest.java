package dev.shelly.modeladapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.modeladapter.RateLimitedCompleter.RateLimiter;
import dev.shelly.modeladapter.RetryingCompleter.Sleeper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class RateLimitedCompleterTest {

    private static final Completer ECHO = request -> ModelResponse.of(Message.text("m", Role.ASSISTANT, "ok"));
    private static final ModelRequest REQUEST = ModelRequest.of(List.of(Message.user("hi")));

    @Test
    void spacesRequestsEvenly() {
        AtomicLong now = new AtomicLong(1_000);
        List<Duration> waits = new ArrayList<>();
        Sleeper fake = d -> {
            waits.add(d);
            now.addAndGet(d.toNanos());
        };
        Completer limited = RateLimitedCompleter.of(ECHO, 120, now::get, fake);
        for (int i = 0; i < 4; i++) {
            assertThat(limited.complete(REQUEST).message().text()).isEqualTo("ok");
        }
        assertThat(waits).containsExactly(Duration.ofMillis(500), Duration.ofMillis(500), Duration.ofMillis(500));
        now.addAndGet(Duration.ofSeconds(10).toNanos());
        waits.clear();
        limited.complete(REQUEST, StreamListener.NONE);
        assertThat(waits).as("an idle limiter lets the next request through at once").isEmpty();
    }

    @RepeatedTest(5)
    void concurrentCallersTakeDistinctSlots() throws Exception {
        AtomicLong now = new AtomicLong(0);
        List<Long> starts = Collections.synchronizedList(new ArrayList<>());
        Sleeper record = d -> starts.add(d.toNanos());
        Completer limited = RateLimitedCompleter.of(ECHO, 60, now::get, record);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 50; i++) {
                pool.submit(() -> limited.complete(REQUEST));
            }
        }
        // One caller starts at once; the other 49 wait 1 s, 2 s, ... 49 s: every slot taken once.
        assertThat(starts).hasSize(49);
        assertThat(starts.stream().sorted().toList())
                .isEqualTo(java.util.stream.LongStream.rangeClosed(1, 49).map(s -> s * 1_000_000_000L).boxed().toList());
    }

    @Test
    void anInterruptedWaitIsACancellation() {
        AtomicLong now = new AtomicLong(0);
        Completer limited = RateLimitedCompleter.of(ECHO, 1, now::get, d -> {
            throw new InterruptedException();
        });
        limited.complete(REQUEST);
        try {
            assertThatThrownBy(() -> limited.complete(REQUEST))
                    .isInstanceOf(CancellationException.class)
                    .hasMessage("interrupted while waiting for a rate-limit slot");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void badSettingsAreNamed() {
        assertThatThrownBy(() -> RateLimitedCompleter.of(ECHO, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RateLimitedCompleter requestsPerMinute must be at least 1, was 0");
    }

    @Test
    void tokensChargedByRepliesHoldBackLaterRequestsOnceAMinuteOfBudgetIsUsed() {
        AtomicLong now = new AtomicLong(0);
        List<Duration> waits = new ArrayList<>();
        Sleeper fake = d -> {
            waits.add(d);
            now.addAndGet(d.toNanos());
        };
        // 60 000 requests/min (1 ms apart) and 600 tokens/min (100 ms per token).
        RateLimiter limiter = RateLimiter.inProcess(new RateLimit(60_000, 600), now::get, fake);
        Completer heavy = request -> ModelResponse.of(Message.text("m", Role.ASSISTANT, "ok"))
                .withUsage(Usage.of(500, 100));
        Completer limited = RateLimitedCompleter.of(heavy, limiter);
        limited.complete(REQUEST);
        assertThat(waits).as("the first request uses the minute's budget of 600 tokens").isEmpty();
        limited.complete(REQUEST);
        assertThat(waits).as("600 more tokens are due only 60 s after the first ones")
                .containsExactly(Duration.ofMillis(1));
        waits.clear();
        limited.complete(REQUEST);
        assertThat(waits).as("1200 tokens charged: the third waits until the first minute's 600 have drained")
                .containsExactly(Duration.ofSeconds(60).minusMillis(1));
    }

    @Test
    void badLimitsAreNamed() {
        assertThatThrownBy(() -> new RateLimit(10, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RateLimit tokensPerMinute must be 0 (no limit) or more, was -1");
        assertThatThrownBy(() -> RateLimit.requestsPerMinute(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RateLimit requestsPerMinute must be at least 1, was 0");
    }
}
