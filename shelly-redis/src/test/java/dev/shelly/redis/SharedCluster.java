package dev.shelly.redis;

/**
 * One {@link RedisCluster} and one {@link RedisBackends} on it for all the contract tests of a
 * test JVM that run on a cluster; each test takes a fresh name, so tests share nothing. Tests that
 * kill nodes start a cluster of their own. Stopped when the test JVM exits.
 */
public final class SharedCluster {
    private static final SharedOnce<RedisCluster> CLUSTER =
            SharedOnce.stoppedAtExit(RedisCluster::start, RedisCluster::close);
    private static final SharedOnce<RedisBackends> BACKENDS =
            SharedOnce.of(() -> RedisBackends.builder(cluster().url()).keyPrefix("test:").build());

    private SharedCluster() {}

    /** The cluster, started on first use. */
    public static RedisCluster cluster() {
        return CLUSTER.get();
    }

    /** Backends on the shared cluster, with the default timeout, each write confirmed by a replica. */
    public static RedisBackends backends() {
        return BACKENDS.get();
    }
}
