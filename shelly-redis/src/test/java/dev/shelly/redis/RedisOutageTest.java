package dev.shelly.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.storage.SessionRecord;
import dev.shelly.storage.spi.SessionStore;
import dev.shelly.modeladapter.Usage;
import dev.shelly.state.Store;
import dev.shelly.state.tasks.Task;
import dev.shelly.state.tasks.TaskBoard;
import dev.shelly.state.tasks.TaskStatus;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/** Redis unreachable, stopped mid-use and started again: clear errors within the timeout, nothing corrupted. */
class RedisOutageTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    @Test
    void aServerThatIsNotThereFailsTheBuildQuicklyWithoutThePassword() throws Exception {
        int port;
        try (var socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String url = "redis://:hunter2@127.0.0.1:" + port;
        long start = System.nanoTime();
        assertThatThrownBy(() -> RedisBackends.builder(url).timeout(TIMEOUT).build())
                .isInstanceOf(RedisUnavailableException.class)
                .hasMessageStartingWith("cannot connect to Redis at redis://127.0.0.1:" + port + " within 1 s: ")
                .hasMessageNotContaining("hunter2");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
        assertThatThrownBy(() -> RedisBackends.builder("http://:hunter2@h:1").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RedisBackends url must start with redis:// or rediss://, got 'http://'");
    }

    @Test
    void aStoppedServerGivesClearErrorsWithinTheTimeoutAndARestartedOneCarriesOn(@TempDir Path data) throws Exception {
        try (RedisServer server = RedisServer.start(data);
                RedisBackends redis = RedisBackends.builder(server.url()).keyPrefix("outage:").timeout(TIMEOUT).build();
                RedisBackends other = RedisBackends.builder(server.url()).keyPrefix("outage:").timeout(TIMEOUT).build()) {
            Store store = new Store(redis.stateBackend("s"));
            TaskBoard board = new TaskBoard(redis.taskBackend("b"), Clock.systemUTC());
            store.setJson("kept", "1");
            Task first = board.create("first", "");
            board.claim(first.id(), "w1");
            FutureTask<Optional<JsonNode>> watcher = new FutureTask<>(() -> store.watch("after", Duration.ofSeconds(60)));
            Thread watching = Thread.ofVirtual().start(watcher);
            awaitParkedInAwaitChange(watching);

            server.stop();
            long before = System.nanoTime();
            assertThatThrownBy(() -> store.setJson("lost", "2"))
                    .isInstanceOf(RedisUnavailableException.class)
                    .hasMessage("Redis at " + server.url() + " did not answer within 1 s while writing key 'lost' of outage:s:");
            assertThatThrownBy(() -> board.claimNext("w2"))
                    .isInstanceOf(RedisUnavailableException.class)
                    .hasMessageStartingWith("Redis at " + server.url() + " did not answer within 1 s while ");
            assertThat(Duration.ofNanos(System.nanoTime() - before)).as("two calls, each bounded by the timeout")
                    .isLessThan(Duration.ofSeconds(6));
            assertThat(watcher.isDone()).as("a watcher keeps waiting through the outage").isFalse();

            Thread.sleep(3_000); // long enough for the client's reconnect delay to have backed off
            server.restart();
            long back = System.nanoTime();
            long deadline = back + TimeUnit.SECONDS.toNanos(30);
            while (true) {
                try {
                    store.setJson("back", "3");
                    break;
                } catch (RedisUnavailableException e) {
                    if (System.nanoTime() > deadline) {
                        throw e;
                    }
                }
            }
            assertThat(Duration.ofNanos(System.nanoTime() - back))
                    .as("the first write succeeds within 1 s of the server being back")
                    .isLessThan(Duration.ofSeconds(1));
            long boardBack = System.nanoTime();
            assertThat(board.get(first.id())).isPresent();
            assertThat(Duration.ofNanos(System.nanoTime() - boardBack)).as("the task board answers at once too")
                    .isLessThan(Duration.ofSeconds(1));
            assertThat(store.get("kept")).contains(JsonNodeFactory.instance.numberNode(1));
            assertThat(store.get("lost")).as("a write that failed did not land").isEmpty();
            assertThat(board.get(first.id()).orElseThrow().assignee()).isEqualTo("w1");
            Task second = board.create("second", "");
            assertThat(second.id()).isEqualTo("task-2");
            assertThat(board.claimNext("w2")).contains(board.get("task-2").orElseThrow());
            assertThat(board.list(TaskStatus.PENDING, null)).isEmpty();

            // The watcher's subscription came back with the server: a write from another process wakes it.
            Store elsewhere = new Store(other.stateBackend("s"));
            awaitWrite(() -> elsewhere.setJson("after", "4"));
            assertThat(watcher.get(30, TimeUnit.SECONDS)).contains(JsonNodeFactory.instance.numberNode(4));
        }
    }

    @Test
    void sessionsFailClearlyWithinTheTimeoutWhileTheServerIsAwayAndLoseNothingAcknowledged(@TempDir Path data)
            throws Exception {
        try (RedisServer server = RedisServer.start(data);
                RedisBackends redis = RedisBackends.builder(server.url()).keyPrefix("outage:").timeout(TIMEOUT)
                        .sessionLease(Duration.ofSeconds(60)).build()) {
            SessionStore sessions = redis.sessions();
            SessionStore.Lease lease = sessions.open("s", Duration.ZERO);
            SessionRecord first = new SessionRecord("s", "a", Instant.EPOCH, Instant.EPOCH, List.of(Message.user("one")),
                    1, Usage.ZERO);
            assertThat(lease.save(first)).isTrue();

            server.stop();
            long before = System.nanoTime();
            assertThatThrownBy(() -> lease.save(new SessionRecord("s", "a", Instant.EPOCH, Instant.EPOCH,
                    List.of(Message.user("one"), Message.user("lost")), 2, Usage.ZERO)))
                    .isInstanceOf(RedisUnavailableException.class)
                    .hasMessage("Redis at " + server.url() + " did not answer within 1 s while saving session 's' of "
                            + "outage:sessions:");
            assertThatThrownBy(() -> sessions.open("t", Duration.ofSeconds(30)))
                    .isInstanceOf(RedisUnavailableException.class)
                    .hasMessage("Redis at " + server.url() + " did not answer within 1 s while taking the lease of "
                            + "session 't' of outage:sessions:");
            assertThatThrownBy(sessions::ids)
                    .isInstanceOf(RedisUnavailableException.class)
                    .hasMessage("Redis at " + server.url() + " did not answer within 1 s while listing the sessions of "
                            + "outage:sessions:");
            assertThat(Duration.ofNanos(System.nanoTime() - before)).as("three calls, each bounded by the timeout")
                    .isLessThan(Duration.ofSeconds(9));

            server.restart();
            awaitWrite(() -> assertThat(lease.save(new SessionRecord("s", "a", Instant.EPOCH, Instant.EPOCH,
                    List.of(Message.user("one"), Message.user("two")), 2, Usage.ZERO))).isTrue());
            lease.close();
            try (SessionStore.Lease again = sessions.open("s", Duration.ofSeconds(5))) {
                assertThat(again.load().orElseThrow().messages()).extracting(Message::text).containsExactly("one", "two");
            }
            assertThat(sessions.ids()).containsExactly("s");
        }
    }

    @Test
    void aBackendClosedAndOpenedAgainUnderTheSameNameStillWakesItsWatchers() throws Exception {
        String name = SharedRedis.freshName();
        for (int round = 0; round < 20; round++) {
            ((RedisStateBackend) SharedRedis.backends().stateBackend(name)).close();
            RedisStateBackend reopened = (RedisStateBackend) SharedRedis.backends().stateBackend(name);
            try (RedisBackends writer = RedisBackends.builder(SharedRedis.server().url()).keyPrefix("test:").build()) {
                Store store = new Store(reopened);
                String key = "k" + round;
                FutureTask<Optional<JsonNode>> watcher = start(() -> store.watch(key, Duration.ofSeconds(30)));
                new Store(writer.stateBackend(name)).setJson(key, "1");
                assertThat(watcher.get(30, TimeUnit.SECONDS)).contains(JsonNodeFactory.instance.numberNode(1));
            } finally {
                reopened.close();
            }
        }
    }

    /** Waits until a watcher has read once and sleeps for a change, so that it is not reading when the server stops. */
    private static void awaitParkedInAwaitChange(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (java.util.Arrays.stream(thread.getStackTrace()).noneMatch(f -> f.getMethodName().equals("awaitChange"))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the watcher never started waiting for a change");
            }
            Thread.sleep(5);
        }
    }

    private static void awaitWrite(Runnable write) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                write.run();
                return;
            } catch (RedisUnavailableException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }

    private static <T> FutureTask<T> start(Callable<T> call) {
        FutureTask<T> task = new FutureTask<>(call);
        Thread.ofVirtual().start(task);
        return task;
    }
}
