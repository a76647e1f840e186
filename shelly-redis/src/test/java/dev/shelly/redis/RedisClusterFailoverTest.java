package dev.shelly.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Message;
import dev.shelly.modeladapter.Usage;
import dev.shelly.state.StateBackend;
import dev.shelly.state.tasks.Task;
import dev.shelly.state.tasks.TaskBoard;
import dev.shelly.state.tasks.TaskStatus;
import dev.shelly.storage.SessionRecord;
import dev.shelly.storage.spi.SessionStore;
import io.lettuce.core.cluster.SlotHash;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * A master of a Redis Cluster is killed (SIGKILL) while tasks, state writes and session turns
 * flow into its slot; its replica takes over, and nothing acknowledged is lost: writes return
 * only once a replica confirmed them (WAIT). Writes that fail during the failover are not
 * acknowledged; the writers retry them. A fresh node then joins as the new master's replica,
 * after which writes are confirmed again. A cluster of its own, since it loses
 * a node.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // each test leaves a node dead: the failover runs on a whole cluster
class RedisClusterFailoverTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Test
    @Order(1)
    void aMasterKilledMidRunLosesNoAcknowledgedTaskStateWriteOrTurn() throws Exception {
        String board = "board";
        String store = sameSlotAs(board, "store");
        String sessions = sameSlotAs(board, "sessions");
        Map<String, TaskStatus> tasks = new ConcurrentHashMap<>();
        Map<String, Long> state = new ConcurrentHashMap<>();
        Map<String, Long> turns = new ConcurrentHashMap<>();
        AtomicLong failures = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        try (RedisBackends redis = RedisBackends.builder(cluster.url()).keyPrefix("f:").timeout(Duration.ofSeconds(2))
                .build()) {
            TaskBoard tb = new TaskBoard(redis.taskBackend(board), Clock.systemUTC());
            StateBackend sb = redis.stateBackend(store);
            SessionStore ss = redis.sessionStore(sessions);
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> writers = new ArrayList<>();
                for (int w = 0; w < 3; w++) {
                    String agent = "w" + w;
                    writers.add(pool.submit(() -> {
                        while (!stop.get()) {
                            Task t = retry(stop, failures, () -> tb.create("work", ""));
                            if (t == null) {
                                return null;
                            }
                            tasks.put(t.id(), TaskStatus.PENDING);
                            if (Boolean.TRUE.equals(retry(stop, failures, () -> claimAndComplete(tb, t.id(), agent)))) {
                                tasks.put(t.id(), TaskStatus.COMPLETED);
                            }
                        }
                        return null;
                    }));
                    writers.add(pool.submit(() -> {
                        for (long i = 1; !stop.get(); i++) {
                            long n = i;
                            String key = agent + "-" + (n % 50);
                            if (retry(stop, failures, () -> sb.put(key, JsonNodeFactory.instance.numberNode(n))) != null) {
                                state.put(key, n);
                            }
                        }
                        return null;
                    }));
                    writers.add(pool.submit(() -> {
                        String id = "s" + agent;
                        try (SessionStore.Lease lease = ss.open(id, Duration.ofSeconds(30))) {
                            for (long v = 1; !stop.get(); v++) {
                                long version = v;
                                SessionRecord r = new SessionRecord(id, "a", T0, T0.plusSeconds(version),
                                        List.of(Message.user("turn " + version)), version, Usage.of(version, 1));
                                if (retry(stop, failures, () -> {
                                    lease.save(r);
                                    return true;
                                }) != null) {
                                    turns.put(id, version);
                                }
                            }
                        }
                        return null;
                    }));
                }
                long afterFailover;
                try {
                    awaitUntil(() -> completed(tasks) >= 30 && state.size() >= 30 && turns.size() == 3, "writes before the kill");
                    int killed = cluster.killMasterOf("f:{" + board + "}:tasks");
                    cluster.awaitFailover("f:{" + board + "}:tasks", killed);
                    // The new master has no replica until a node joins as one: until then its writes
                    // cannot be confirmed, and fail (unacknowledged) rather than risk being lost.
                    cluster.addReplicaFor("f:{" + board + "}:tasks");
                    afterFailover = completed(tasks);
                    awaitUntil(() -> completed(tasks) >= afterFailover + 30, "tasks completed after the failover");
                } finally {
                    stop.set(true);
                }
                for (Future<?> f : writers) {
                    f.get(60, TimeUnit.SECONDS);
                }
                assertThat(failures.get()).as("writes failed (unacknowledged) during the failover").isPositive();
            }

            for (Map.Entry<String, TaskStatus> t : tasks.entrySet()) {
                Optional<Task> stored = tb.get(t.getKey());
                assertThat(stored).as("acknowledged task %s", t.getKey()).isPresent();
                if (t.getValue() == TaskStatus.COMPLETED) {
                    assertThat(stored.get().status()).as("acknowledged completion of %s", t.getKey())
                            .isEqualTo(TaskStatus.COMPLETED);
                }
            }
            for (Map.Entry<String, Long> e : state.entrySet()) {
                assertThat(sb.get(e.getKey()).orElseThrow().value().asLong()).as("acknowledged write of %s", e.getKey())
                        .isGreaterThanOrEqualTo(e.getValue());
            }
            for (Map.Entry<String, Long> e : turns.entrySet()) {
                assertThat(ss.peek(e.getKey()).orElseThrow().version()).as("acknowledged turn of %s", e.getKey())
                        .isGreaterThanOrEqualTo(e.getValue());
            }
            assertThat(turns).hasSize(3);
        }
    }

    @Test
    @Order(2)
    void aWatcherWakesOnChangesAfterTheNodeItListenedOnDied() throws Exception {
        try (RedisBackends watching = RedisBackends.builder(cluster.url()).keyPrefix("w:").timeout(Duration.ofSeconds(2))
                .replicas(0).build();
                RedisBackends writing = RedisBackends.builder(cluster.url()).keyPrefix("w:").timeout(Duration.ofSeconds(2))
                        .replicas(0).build()) {
            TaskBoard watched = new TaskBoard(watching.taskBackend("watched"), Clock.systemUTC());
            TaskBoard writer = new TaskBoard(writing.taskBackend("watched"), Clock.systemUTC());
            Task before = watched.create("before", "");
            writer.claim(before.id(), "w");
            assertThat(watched.watch(before.id(), TaskStatus.PENDING, Duration.ofSeconds(10))).isPresent();

            int killed = cluster.killNodeListeningOn("w:{watched}:changed");
            cluster.awaitFailed(killed);
            Task after = retry(new AtomicBoolean(), new AtomicLong(), () -> writer.create("after", ""));
            long start = System.nanoTime();
            Thread claimer = Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    return;
                }
                retry(new AtomicBoolean(), new AtomicLong(), () -> writer.claim(after.id(), "w"));
            });
            Optional<Task> seen = retry(new AtomicBoolean(), new AtomicLong(), () -> {
                try {
                    return watched.watch(after.id(), TaskStatus.PENDING, Duration.ofSeconds(30));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            claimer.join();
            assertThat(seen).as("the watcher woke").map(Task::status).contains(TaskStatus.IN_PROGRESS);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("woken by the change, not by its timeout")
                    .isLessThan(Duration.ofSeconds(15));
        }
    }

    private static long completed(Map<String, TaskStatus> tasks) {
        return tasks.values().stream().filter(s -> s == TaskStatus.COMPLETED).count();
    }

    private static void awaitUntil(java.util.function.BooleanSupplier done, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no " + what + " within 60 s");
            }
            Thread.sleep(20);
        }
    }

    private static boolean claimAndComplete(TaskBoard tb, String id, String agent) {
        Task current = tb.get(id).orElseThrow();
        if (current.status() == TaskStatus.PENDING) {
            tb.claim(id, agent);
        }
        if (tb.get(id).orElseThrow().status() == TaskStatus.IN_PROGRESS) {
            tb.update(id, TaskStatus.COMPLETED, agent, agent);
        }
        return true;
    }

    /** Runs a write until it is acknowledged; null when the test stopped first. */
    private static <T> T retry(AtomicBoolean stop, AtomicLong failures, Supplier<T> write) {
        while (!stop.get()) {
            try {
                return write.get();
            } catch (RedisUnavailableException e) {
                failures.incrementAndGet();
            }
        }
        return null;
    }

    /** A name whose hash tag lands in the same slot as another's, so that one kill hits both. */
    private static String sameSlotAs(String name, String stem) {
        int slot = SlotHash.getSlot(name);
        for (int i = 0; ; i++) {
            if (SlotHash.getSlot(stem + i) == slot) {
                return stem + i;
            }
        }
    }
}
