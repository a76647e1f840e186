package dev.shelly.modeladapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class UsageTrackerTest {

    @Test
    void addLastTotalCountReset() {
        UsageTracker tracker = new UsageTracker();
        assertThat(tracker.last()).isEmpty();
        assertThat(tracker.total()).isEqualTo(Usage.ZERO);
        tracker.add(new Usage(10, 5, 100, 7));
        tracker.add(Usage.of(3, 2));
        assertThat(tracker.count()).isEqualTo(2);
        assertThat(tracker.last()).contains(Usage.of(3, 2));
        assertThat(tracker.total()).isEqualTo(new Usage(13, 7, 100, 7));
        tracker.reset();
        assertThat(tracker.count()).isZero();
        assertThat(tracker.last()).isEmpty();
        assertThat(tracker.total()).isEqualTo(Usage.ZERO);
    }

    @Test
    void usageArithmetic() {
        Usage u = new Usage(10, 5, 100, 7);
        assertThat(u.totalInputTokens()).isEqualTo(117);
        assertThat(u.totalTokens()).isEqualTo(122);
        assertThat(u.plus(Usage.of(1, 1))).isEqualTo(new Usage(11, 6, 100, 7));
        assertThat(new Usage(10, 5, 0, 0, 3).plus(new Usage(1, 4, 0, 0, 2)))
                .as("reasoning tokens add up too").isEqualTo(new Usage(11, 9, 0, 0, 5));
        assertThat(new Usage(1, 2, 3, 4)).isEqualTo(new Usage(1, 2, 3, 4, 0));
        assertThatThrownBy(() -> new Usage(-1, 0, 0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be negative");
        assertThatThrownBy(() -> new Usage(0, 0, 0, 0, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Usage token counts must not be negative: 0, 0, 0, 0, -1");
        assertThatThrownBy(() -> new UsageTracker().add(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("UsageTracker.add usage must not be null");
    }

    @RepeatedTest(10)
    void concurrentAddsAreAllCounted() throws Exception {
        UsageTracker tracker = new UsageTracker();
        CountDownLatch start = new CountDownLatch(1);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int t = 0; t < 50; t++) {
                pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < 1000; i++) {
                        tracker.add(new Usage(1, 2, 3, 4));
                    }
                    return null;
                });
            }
            start.countDown();
        }
        assertThat(tracker.count()).isEqualTo(50_000);
        assertThat(tracker.total()).isEqualTo(new Usage(50_000, 100_000, 150_000, 200_000));
    }
}
