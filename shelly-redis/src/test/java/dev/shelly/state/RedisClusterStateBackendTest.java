package dev.shelly.state;

import dev.shelly.redis.SharedCluster;
import dev.shelly.redis.SharedRedis;

/** Runs shelly-state's {@link StateBackendContract} unchanged on a Redis backend, against a real Redis Cluster. */
class RedisClusterStateBackendTest extends StateBackendContract {
    @Override
    protected StateBackend newBackend() {
        return SharedCluster.backends().stateBackend(SharedRedis.freshName());
    }
}
