package dev.shelly.redis;

import java.util.UUID;

/**
 * One redis-server and one {@link RedisBackends} for all the tests of a run that need no server
 * of their own; each test takes a fresh name (or prefix), so tests share nothing. Stopped when
 * the test JVM exits.
 */
public final class SharedRedis {
    private static final SharedOnce<RedisServer> SERVER =
            SharedOnce.stoppedAtExit(RedisServer::start, RedisServer::close);
    private static final SharedOnce<RedisBackends> BACKENDS =
            SharedOnce.of(() -> RedisBackends.builder(server().url()).keyPrefix("test:").build());

    private SharedRedis() {}

    /** The server, started on first use. */
    public static RedisServer server() {
        return SERVER.get();
    }

    /** Backends on the shared server, with the default timeout. */
    public static RedisBackends backends() {
        return BACKENDS.get();
    }

    /** A name no other test uses. */
    public static String freshName() {
        return "t-" + UUID.randomUUID();
    }
}
