package dev.shelly.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.ToolCall;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.RepeatedTest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Many virtual threads writing, updating and watching one store at once, on any
 * {@link StateBackend}: every backend runs it. Published in the test jar.
 */
public abstract class StoreContentionContract {
    /**
     * A new, empty backend for one test; each call must return a backend that shares nothing
     * with the others.
     *
     * @return the backend
     */
    protected abstract StateBackend newBackend();

    /**
     * How many rounds a long test runs, given how many it runs in memory: a backend whose every
     * step is a network round trip (Redis) may run fewer, keeping the same threads and checks.
     *
     * @param inMemory the rounds in memory
     * @return the rounds on this backend
     */
    protected int rounds(int inMemory) {
        return inMemory;
    }

    private static final int THREADS = 64;
    private static final Duration HANG_GUARD = Duration.ofSeconds(60);

    @RepeatedTest(20)
    void concurrentUpdatesLoseNoIncrement() throws Exception {
        Store store = new Store(newBackend());
        int perThread = rounds(100);
        CountDownLatch start = new CountDownLatch(1);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        store.update("counter", v -> {
                            Thread.yield(); // widens the read-modify-write window so that a lost update would show
                            return JsonNodeFactory.instance.numberNode(v == null ? 1 : v.intValue() + 1);
                        });
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(HANG_GUARD.toSeconds(), TimeUnit.SECONDS);
            }
        }
        assertThat(store.get("counter")).contains(JsonNodeFactory.instance.numberNode(THREADS * perThread));
    }

    @RepeatedTest(20)
    void everyWatcherWakesWithTheValueOfItsKey() throws Exception {
        Store store = new Store(newBackend());
        int keys = 16;
        int watchersPerKey = 8;
        CountDownLatch start = new CountDownLatch(1);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Optional<JsonNode>>> watchers = new ArrayList<>();
            List<Integer> watchedKey = new ArrayList<>();
            for (int k = 0; k < keys; k++) {
                for (int w = 0; w < watchersPerKey; w++) {
                    String key = "k" + k;
                    watchedKey.add(k);
                    watchers.add(pool.submit(() -> {
                        start.await();
                        return store.watch(key, HANG_GUARD);
                    }));
                }
            }
            List<Future<?>> writers = new ArrayList<>();
            for (int k = 0; k < keys; k++) {
                int key = k;
                writers.add(pool.submit(() -> {
                    start.await();
                    store.setJson("noise" + key, "0");
                    store.setJson("k" + key, "{\"k\":" + key + "}");
                    store.delete("noise" + key);
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : writers) {
                f.get(HANG_GUARD.toSeconds(), TimeUnit.SECONDS);
            }
            for (int i = 0; i < watchers.size(); i++) {
                assertThat(watchers.get(i).get(HANG_GUARD.toSeconds(), TimeUnit.SECONDS))
                        .contains(JsonValues.JSON.readTree("{\"k\":" + watchedKey.get(i) + "}"));
            }
        }
    }

    @RepeatedTest(20)
    void oneWriteWakesEveryWaiterOfThatKey() throws Exception {
        Store store = new Store(newBackend());
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Optional<JsonNode>>> watchers = new ArrayList<>();
            CountDownLatch started = new CountDownLatch(THREADS);
            for (int w = 0; w < THREADS; w++) {
                watchers.add(pool.submit(() -> {
                    started.countDown();
                    return store.watch("result", HANG_GUARD);
                }));
            }
            started.await();
            store.setJson("result", "42");
            for (Future<Optional<JsonNode>> f : watchers) {
                assertThat(f.get(HANG_GUARD.toSeconds(), TimeUnit.SECONDS)).contains(JsonNodeFactory.instance.numberNode(42));
            }
        }
    }

    @RepeatedTest(20)
    void snapshotsAreConsistentWhileWritersRun() throws Exception {
        // The writer always sets "a" before "b", so at every moment a >= b; a snapshot must show that too.
        // Platform threads: readers that spin need preemption, or they could starve the writer of carriers.
        Store store = new Store(newBackend());
        store.setJson("a", "0");
        store.setJson("b", "0");
        int rounds = rounds(20_000);
        try (ExecutorService pool = Executors.newFixedThreadPool(3)) {
            CountDownLatch start = new CountDownLatch(1);
            Future<?> writer = pool.submit(() -> {
                start.await();
                for (int i = 1; i <= rounds; i++) {
                    store.setJson("a", Integer.toString(i));
                    store.setJson("b", Integer.toString(i));
                }
                return null;
            });
            List<Future<?>> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                readers.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < rounds && !writer.isDone(); i++) {
                        var snap = store.snapshot();
                        assertThat(snap.get("a").intValue()).isGreaterThanOrEqualTo(snap.get("b").intValue());
                    }
                    return null;
                }));
            }
            start.countDown();
            writer.get(HANG_GUARD.toSeconds(), TimeUnit.SECONDS);
            for (Future<?> r : readers) {
                r.get(HANG_GUARD.toSeconds(), TimeUnit.SECONDS);
            }
        }
        assertThat(store.get("b")).contains(JsonNodeFactory.instance.numberNode(rounds));
    }

    @RepeatedTest(10)
    void agentsSettingThroughToolsConcurrentlyEachLandTheirKey() throws Exception {
        Store store = new Store(newBackend());
        ToolBox tools = store.tools("team");
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<String>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int n = t;
                results.add(pool.submit(() -> tools.call(new ToolCall("c" + n, "team_state_set",
                        "{\"key\":\"agent-" + n + "\",\"value\":{\"n\":" + n + "}}"), ToolContext.of("agent-" + n)).text()));
            }
            for (Future<String> f : results) {
                assertThat(f.get(HANG_GUARD.toSeconds(), TimeUnit.SECONDS)).isEqualTo("ok");
            }
        }
        assertThat(store.keys()).hasSize(THREADS);
        for (int n = 0; n < THREADS; n++) {
            assertThat(tools.call(new ToolCall("g", "team_state_get", "{\"key\":\"agent-" + n + "\"}"), ToolContext.of("reader")).text())
                    .isEqualTo("{\"n\":" + n + "}");
        }
    }
}
