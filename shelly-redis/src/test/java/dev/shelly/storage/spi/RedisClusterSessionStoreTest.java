package dev.shelly.storage.spi;

import dev.shelly.redis.SharedCluster;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/** Runs shelly-engine's {@link SessionStoreContract} unchanged on the Redis session store, against a real Redis Cluster. */
class RedisClusterSessionStoreTest extends SessionStoreContract {
    @Override
    protected SessionStore openStore(String place) {
        return SharedCluster.backends().sessionStore(place);
    }

    @Override
    protected Runnable keepJournal(String place, String id) {
        String key = key(place, "journal:", id);
        List<String> kept = raw(c -> { }, c -> c.lrange(key, 0, -1));
        return () -> raw(c -> c.rpush(key, kept.toArray(String[]::new)), c -> null);
    }

    @Override
    protected void tearJournal(String place, String id, String torn) {
        raw(c -> c.rpush(key(place, "journal:", id), torn), c -> null);
    }

    @Override
    protected boolean expireLease(String place, String id) {
        raw(c -> c.del(key(place, "lease:", id)), c -> null);
        return true;
    }

    /** The key the cluster's backends give a session's part: the store's name is its hash tag. */
    private static String key(String place, String part, String id) {
        return "test:{" + place + "}:" + part + id;
    }

    private static <T> T raw(Consumer<RedisAdvancedClusterCommands<String, String>> write,
            Function<RedisAdvancedClusterCommands<String, String>, T> read) {
        List<RedisURI> seeds = SharedCluster.cluster().nodes().stream().map(n -> RedisURI.create("redis://" + n)).toList();
        RedisClusterClient client = RedisClusterClient.create(seeds);
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            write.accept(connection.sync());
            return read.apply(connection.sync());
        } finally {
            client.shutdown();
        }
    }
}
