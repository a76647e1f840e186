package dev.shelly.redis;

import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One redis-server and one {@link RedisBackends} for all the tests of a run that need no server
 * of their own; each test takes a fresh name (or prefix), so tests share nothing. Stopped when
 * the test JVM exits.
 */
public final class SharedRedis {
    private static final ReentrantLock LOCK = new ReentrantLock();
    private static RedisServer server;
    private static RedisBackends backends;

    private SharedRedis() {}

    /** The server, started on first use. */
    public static RedisServer server() {
        LOCK.lock();
        try {
            if (server == null) {
                RedisServer started = RedisServer.start();
                Runtime.getRuntime().addShutdownHook(new Thread(started::close));
                server = started;
            }
            return server;
        } finally {
            LOCK.unlock();
        }
    }

    /** Backends on the shared server, with the default timeout. */
    public static RedisBackends backends() {
        LOCK.lock();
        try {
            if (backends == null) {
                backends = RedisBackends.builder(server().url()).keyPrefix("test:").build();
            }
            return backends;
        } finally {
            LOCK.unlock();
        }
    }

    /** A name no other test uses. */
    public static String freshName() {
        return "t-" + UUID.randomUUID();
    }
}
