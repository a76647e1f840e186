package dev.shelly.state.tasks;

import dev.shelly.redis.SharedCluster;
import dev.shelly.redis.SharedRedis;

/** Runs shelly-state's {@link TaskBoardContract} unchanged on a Redis backend, against a real Redis Cluster. */
class RedisClusterTaskBoardTest extends TaskBoardContract {
    @Override
    protected TaskBackend newBackend() {
        return SharedCluster.backends().taskBackend(SharedRedis.freshName());
    }
}
