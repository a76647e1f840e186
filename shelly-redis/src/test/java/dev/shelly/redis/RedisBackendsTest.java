package dev.shelly.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.state.tasks.TaskBoard;
import java.time.Clock;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.JsonNodeFactory;

class RedisBackendsTest {

    private static RedisBackends backends(String prefix) {
        return RedisBackends.builder(SharedRedis.server().url()).keyPrefix(prefix).build();
    }

    /** Fills a board and a blackboard, as a program's run would. */
    private static void use(RedisBackends redis) {
        new TaskBoard(redis.taskBackend("board"), Clock.systemUTC()).create("a task", "");
        redis.stateBackend("notes").put("k", JsonNodeFactory.instance.stringNode("v"));
    }

    @Test
    void deleteKeysRemovesEverythingUnderThePrefixAndNothingElse() {
        String run = UUID.randomUUID().toString();
        try (RedisBackends mine = backends("run-" + run + ":*[a]:"); RedisBackends other = backends("run-" + run + ":")) {
            use(mine);
            use(other);

            assertThat(mine.deleteKeys()).isPositive();

            assertThat(mine.deleteKeys()).isZero();
            assertThat(mine.stateBackend("notes").keys()).isEmpty();
            assertThat(other.stateBackend("notes").keys()).containsExactly("k");
            assertThat(other.deleteKeys()).isPositive();
        }
    }

    @Test
    void deleteKeysRefusesAnEmptyPrefix() {
        try (RedisBackends all = backends("")) {
            assertThatThrownBy(all::deleteKeys).isInstanceOf(IllegalStateException.class)
                    .hasMessage("RedisBackends.deleteKeys needs a key prefix: without one it would delete every key of "
                            + "the database");
        }
    }

    @Test
    void aClusterIsOpenedByItsNodesAndKeepsEachBackendInOneSlotWithLeasesFromTheBuilder() {
        String prefix = "run-" + UUID.randomUUID() + ":";
        try (RedisBackends cluster = RedisBackends.builder(SharedCluster.cluster().nodes()).keyPrefix(prefix)
                .taskLease(java.time.Duration.ofSeconds(7)).build()) {
            TaskBoard board = cluster.taskBoard("board");
            assertThat(board.lease()).isEqualTo(java.time.Duration.ofSeconds(7));
            assertThat(board.create("t", "").id()).isEqualTo("task-1");
            assertThat(board.claimNext("w").orElseThrow().leaseUntil()).isNotNull();
            use(cluster);
            assertThat(cluster.ping()).isTrue();
            assertThat(cluster.deleteKeys()).as("deleted across the masters").isPositive();
            assertThat(cluster.stateBackend("notes").keys()).isEmpty();
        }
    }

    @Test
    void clusterNodesGivenAsRedissConnectWithTls() {
        // The test cluster speaks no TLS: a client that really uses TLS cannot connect to it.
        java.util.List<String> secure = SharedCluster.cluster().nodes().stream().map(n -> "rediss://" + n).toList();
        assertThatThrownBy(() -> RedisBackends.builder(secure).timeout(java.time.Duration.ofSeconds(2)).build().close())
                .isInstanceOf(RedisUnavailableException.class)
                .hasMessageStartingWith("cannot connect to Redis at redis-cluster://");
    }

    @Test
    void clusterSettingsAreCheckedAndNamed() {
        assertThatThrownBy(() -> RedisBackends.builder(java.util.List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RedisBackends nodes must name at least one node of the cluster");
        assertThatThrownBy(() -> RedisBackends.builder(java.util.List.of("h:1", "ftp://h:2")).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RedisBackends nodes[1] must be host:port or redis://host:port, got 'ftp://'");
        assertThatThrownBy(() -> RedisBackends.builder(java.util.List.of("rediss://h:1", "redis://h:2")).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RedisBackends nodes[1] is redis:// but nodes[0] is rediss:// (TLS); every node of a "
                        + "cluster takes the same");
        assertThatThrownBy(() -> RedisBackends.builder(java.util.List.of("h:1", "redis://:a@h:2", "redis://:b@h:3"))
                .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RedisBackends nodes[2] has other credentials than nodes[1]; every node of a cluster "
                        + "takes the same");
        assertThatThrownBy(() -> RedisBackends.builder("redis-cluster://h:1").replicas(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RedisBackends replicas must not be negative, was -1");
        assertThatThrownBy(() -> RedisBackends.builder("redis://h").taskLease(java.time.Duration.ofMillis(10)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RedisBackends taskLease must be at least 100 ms, was PT0.01S");
    }
}
