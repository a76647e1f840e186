package dev.shelly.state.tasks;

import dev.shelly.redis.SharedCluster;
import dev.shelly.redis.SharedRedis;

/** Runs shelly-state's {@link TaskBoardContentionContract} unchanged on a Redis backend, against a real Redis Cluster. */
class RedisClusterTaskBoardContentionTest extends TaskBoardContentionContract {
    @Override
    protected TaskBackend newBackend() {
        return SharedCluster.backends().taskBackend(SharedRedis.freshName());
    }
}
