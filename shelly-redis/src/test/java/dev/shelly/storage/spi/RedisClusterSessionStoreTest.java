package dev.shelly.storage.spi;

import dev.shelly.redis.SharedCluster;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.List;
import java.util.function.Function;

/**
 * Runs shelly-engine's {@link SessionStoreContract} unchanged on the Redis session store, against
 * a real Redis Cluster: the single-server test's hooks, with the cluster's keys and connections.
 */
class RedisClusterSessionStoreTest extends RedisSessionStoreTest {
    @Override
    protected SessionStore openStore(String place) {
        return SharedCluster.backends().sessionStore(place);
    }

    /** The key the cluster's backends give a session's part: the store's name is its hash tag. */
    @Override
    String key(String place, String part, String id) {
        return "test:{" + place + "}:" + part + id;
    }

    @Override
    <T> T raw(Function<RedisClusterCommands<String, String>, T> command) {
        List<RedisURI> seeds = SharedCluster.cluster().nodes().stream().map(n -> RedisURI.create("redis://" + n)).toList();
        RedisClusterClient client = RedisClusterClient.create(seeds);
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            return command.apply(connection.sync());
        } finally {
            client.shutdown();
        }
    }
}
