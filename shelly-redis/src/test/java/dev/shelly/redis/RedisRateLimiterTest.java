package dev.shelly.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.RateLimit;
import dev.shelly.modeladapter.RateLimitedCompleter;
import dev.shelly.modeladapter.Usage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Two limiters of one name, on two connections, keep one limit between them. */
class RedisRateLimiterTest {

    @Test
    void twoLimitersSharingANameSpaceTheirStartsByOneIntervalTogether() throws Exception {
        String name = SharedRedis.freshName();
        RateLimit limit = RateLimit.requestsPerMinute(60_000); // one start per millisecond
        try (RedisBackends second = RedisBackends.builder(SharedRedis.server().url()).keyPrefix("test:").build()) {
            List<RedisRateLimiter> limiters = List.of((RedisRateLimiter) SharedRedis.backends().rateLimiter(name, limit),
                    (RedisRateLimiter) second.rateLimiter(name, limit));
            List<Long> starts = Collections.synchronizedList(new ArrayList<>());
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 32; t++) {
                    RedisRateLimiter limiter = limiters.get(t % 2);
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < 25; i++) {
                            starts.add(limiter.reserve().startMicros());
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get(60, TimeUnit.SECONDS);
                }
            }
            List<Long> sorted = starts.stream().sorted().toList();
            assertThat(sorted).hasSize(800).doesNotHaveDuplicates();
            for (int i = 1; i < sorted.size(); i++) {
                assertThat(sorted.get(i) - sorted.get(i - 1)).as("gap before start %d", i).isGreaterThanOrEqualTo(1000);
            }
        }
    }

    @Test
    void tokensChargedByOneInstanceHoldBackTheOther() throws Exception {
        String name = SharedRedis.freshName();
        RateLimit limit = new RateLimit(60_000, 6_000); // 10 ms per token
        try (RedisBackends second = RedisBackends.builder(SharedRedis.server().url()).keyPrefix("test:").build()) {
            RedisRateLimiter one = (RedisRateLimiter) SharedRedis.backends().rateLimiter(name, limit);
            RedisRateLimiter two = (RedisRateLimiter) second.rateLimiter(name, limit);
            Completer heavy = request -> ModelResponse.of(Message.text("m", Role.ASSISTANT, "ok"))
                    .withUsage(Usage.of(5_000, 1_000));
            RateLimitedCompleter.of(heavy, one).complete(ModelRequest.of(List.of(Message.user("hi"))));
            assertThat(two.reserve().delay()).as("one minute's tokens may come as a burst").isLessThan(Duration.ofMillis(100));
            one.charge(600);
            Duration wait = two.reserve().delay();
            assertThat(wait).as("600 tokens over the minute's budget: 6 s at 100 tokens/s")
                    .isBetween(Duration.ofMillis(5_800), Duration.ofMillis(6_000));
        }
    }

    @Test
    void anInterruptedAcquireThrowsAndBadNamesAreRefused() {
        RedisRateLimiter limiter = (RedisRateLimiter) SharedRedis.backends().rateLimiter(SharedRedis.freshName(), RateLimit.requestsPerMinute(1));
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(limiter::acquire).isInstanceOf(InterruptedException.class);
        } finally {
            Thread.interrupted();
        }
        assertThatThrownBy(() -> SharedRedis.backends().rateLimiter("has space", RateLimit.requestsPerMinute(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RedisBackends.rateLimiter name must be 1 to 100 letters, digits, '_', '-', '.' or ':', "
                        + "was 'has space'");
    }
}
