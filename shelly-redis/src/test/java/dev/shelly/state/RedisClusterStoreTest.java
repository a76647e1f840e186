package dev.shelly.state;

import dev.shelly.redis.SharedCluster;
import dev.shelly.redis.SharedRedis;

/** Runs shelly-state's {@link StoreContract} unchanged on a Redis backend, against a real Redis Cluster. */
class RedisClusterStoreTest extends StoreContract {
    @Override
    protected StateBackend newBackend() {
        return SharedCluster.backends().stateBackend(SharedRedis.freshName());
    }
}
