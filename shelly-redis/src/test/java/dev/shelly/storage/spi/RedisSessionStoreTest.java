package dev.shelly.storage.spi;

import dev.shelly.redis.SharedRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.List;
import java.util.function.Function;

/** Runs shelly-engine's {@link SessionStoreContract} unchanged on the Redis session store, against a real redis-server. */
class RedisSessionStoreTest extends SessionStoreContract {
    @Override
    protected SessionStore openStore(String place) {
        return SharedRedis.backends().sessionStore(place);
    }

    @Override
    protected Runnable keepJournal(String place, String id) {
        String key = key(place, "journal:", id);
        List<String> kept = raw(c -> c.lrange(key, 0, -1));
        return () -> raw(c -> c.rpush(key, kept.toArray(String[]::new)));
    }

    @Override
    protected void tearJournal(String place, String id, String torn) {
        raw(c -> c.rpush(key(place, "journal:", id), torn));
    }

    @Override
    protected boolean expireLease(String place, String id) {
        raw(c -> c.del(key(place, "lease:", id)));
        return true;
    }

    /** The key SharedRedis's backends give a session's part. */
    String key(String place, String part, String id) {
        return "test:" + place + ":" + part + id;
    }

    /** Runs one command on a connection of its own to the store's server. */
    <T> T raw(Function<RedisClusterCommands<String, String>, T> command) {
        try (RedisClient client = RedisClient.create(SharedRedis.server().url());
                StatefulRedisConnection<String, String> connection = client.connect()) {
            return command.apply(connection.sync());
        }
    }
}
