package dev.shelly.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * The parts of the {@link StateBackend} contract the store relies on: every backend runs it
 * (the in-memory one here, the Redis one in shelly-redis). Published in shelly-state's test jar.
 */
public abstract class StateBackendContract {
    /**
     * A new, empty backend for one test; each call must return a backend that shares nothing
     * with the others.
     *
     * @return the backend
     */
    protected abstract StateBackend newBackend();

    private final StateBackend backend = newBackend();

    @Test
    void compareAndSetTreatsVersionZeroAsAbsent() {
        assertThat(backend.compareAndSet("k", 0, JsonNodeFactory.instance.numberNode(1))).isTrue();
        assertThat(backend.compareAndSet("k", 0, JsonNodeFactory.instance.numberNode(2))).isFalse();
        long v = backend.get("k").orElseThrow().version();
        assertThat(backend.compareAndSet("k", v + 1, JsonNodeFactory.instance.numberNode(3))).isFalse();
        assertThat(backend.compareAndSet("k", v, JsonNodeFactory.instance.numberNode(4))).isTrue();
        assertThat(backend.get("k").orElseThrow().value()).isEqualTo(JsonNodeFactory.instance.numberNode(4));
    }

    @Test
    void aKeyDeletedAndWrittenAgainNeverRepeatsAVersion() {
        long first = backend.put("k", JsonNodeFactory.instance.numberNode(1));
        backend.put("other", JsonNodeFactory.instance.numberNode(1));
        assertThat(backend.remove("k")).isTrue();
        long second = backend.put("k", JsonNodeFactory.instance.numberNode(1));
        assertThat(second).isGreaterThan(first);
        assertThat(backend.compareAndSet("k", first, JsonNodeFactory.instance.numberNode(9))).isFalse();
    }

    @Test
    void everySuccessfulWriteRaisesTheRevisionAndFailedOnesDoNot() throws InterruptedException {
        long r0 = backend.revision();
        backend.put("k", JsonNodeFactory.instance.nullNode());
        long r1 = backend.revision();
        assertThat(r1).isGreaterThan(r0);
        assertThat(backend.compareAndSet("k", 0, JsonNodeFactory.instance.nullNode())).isFalse();
        assertThat(backend.remove("absent")).isFalse();
        assertThat(backend.revision()).isEqualTo(r1);
        assertThat(backend.remove("k")).isTrue();
        assertThat(backend.revision()).isGreaterThan(r1);
        assertThat(backend.awaitChange(r0, Duration.ofDays(1))).isEqualTo(backend.revision());
        assertThat(backend.awaitChange(backend.revision(), Duration.ofMillis(20))).isEqualTo(backend.revision());
    }
}
