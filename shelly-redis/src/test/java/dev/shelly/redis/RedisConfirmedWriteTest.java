package dev.shelly.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.state.tasks.TaskBackend;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Writes that must be confirmed by a replica ({@code replicas} above 0) on a server without one:
 * each waits for its WAIT and fails, and meanwhile nothing else waits behind that WAIT.
 */
class RedisConfirmedWriteTest {

    @Test
    void aWriteWaitingForAReplicaHoldsUpNeitherReadsNorOtherWrites() throws Exception {
        // A server of its own, so that the only blocked client on it is the WAIT of this test.
        String prefix = "confirm-" + UUID.randomUUID() + ":";
        RedisServer server = RedisServer.start();
        RedisClient plain = RedisClient.create(server.url());
        try (server; RedisBackends durable = RedisBackends.builder(server.url()).keyPrefix(prefix).replicas(1)
                        .timeout(Duration.ofSeconds(4)).build();
                var watching = plain.connect()) {
            RedisCommands<String, String> watcher = watching.sync();
            TaskBackend tasks = durable.taskBackend("board");
            CompletableFuture<Long> first = CompletableFuture.supplyAsync(tasks::nextSequence);
            awaitBlockedClients(watcher, 1);

            assertThat(tasks.get("task-1")).as("a read while the WAIT runs").isEmpty();
            assertThat(durable.ping()).isTrue();
            assertThat(blockedClients(watcher)).as("the WAIT still runs").isEqualTo(1);

            CompletableFuture<Long> second = CompletableFuture.supplyAsync(tasks::nextSequence);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!"2".equals(watcher.get(prefix + "board:sequence")) && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(watcher.get(prefix + "board:sequence")).as("the second write ran at once").isEqualTo("2");
            assertThat(blockedClients(watcher)).as("while the first WAIT still runs").isEqualTo(1);

            for (CompletableFuture<Long> write : java.util.List.of(first, second)) {
                assertThat(write).failsWithin(Duration.ofSeconds(15)).withThrowableOfType(ExecutionException.class)
                        .havingCause().isInstanceOf(RedisUnavailableException.class)
                        .withMessage("Redis at " + server.url() + ": only 0 of 1 replica(s) confirmed the write within "
                                + "2 s while numbering a task of " + prefix + "board:; it may be lost if its master fails");
            }
        } finally {
            plain.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    @Test
    void aWriteNoReplicaAnsweredForSaysZeroNotNull() {
        dev.shelly.storage.spi.RedisConfig config = new dev.shelly.storage.spi.RedisConfig(null, null, null,
                Duration.ofSeconds(5), java.util.List.of("redis://:pw@h:1"), null, null);
        assertThat(RedisConnection.unconfirmed(config, null, "saving x")).isEqualTo("Redis at redis-cluster://h:1: "
                + "only 0 of 1 replica(s) confirmed the write within 2500 ms while saving x; it may be lost if its "
                + "master fails");
        assertThat(RedisConnection.unconfirmed(config, 3L, "saving x"))
                .startsWith("Redis at redis-cluster://h:1: only 3 of 1 ");
    }

    private static void awaitBlockedClients(RedisCommands<String, String> watcher, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (blockedClients(watcher) != count && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(blockedClients(watcher)).isEqualTo(count);
    }

    private static int blockedClients(RedisCommands<String, String> watcher) {
        for (String line : watcher.info("clients").split("\r?\n")) {
            if (line.startsWith("blocked_clients:")) {
                return Integer.parseInt(line.substring("blocked_clients:".length()).strip());
            }
        }
        throw new AssertionError("INFO clients has no blocked_clients line");
    }
}
