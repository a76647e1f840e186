package dev.shelly.redis;

import java.util.concurrent.locks.ReentrantLock;

/**
 * One {@link RedisCluster} and one {@link RedisBackends} on it for all the contract tests of a
 * test JVM that run on a cluster; each test takes a fresh name, so tests share nothing. Tests that
 * kill nodes start a cluster of their own. Stopped when the test JVM exits.
 */
public final class SharedCluster {
    private static final ReentrantLock LOCK = new ReentrantLock();
    private static RedisCluster cluster;
    private static RedisBackends backends;

    private SharedCluster() {}

    /** The cluster, started on first use. */
    public static RedisCluster cluster() {
        LOCK.lock();
        try {
            if (cluster == null) {
                RedisCluster started = RedisCluster.start();
                Runtime.getRuntime().addShutdownHook(new Thread(started::close));
                cluster = started;
            }
            return cluster;
        } finally {
            LOCK.unlock();
        }
    }

    /** Backends on the shared cluster, with the default timeout, each write confirmed by a replica. */
    public static RedisBackends backends() {
        LOCK.lock();
        try {
            if (backends == null) {
                backends = RedisBackends.builder(cluster().url()).keyPrefix("test:").build();
            }
            return backends;
        } finally {
            LOCK.unlock();
        }
    }
}
