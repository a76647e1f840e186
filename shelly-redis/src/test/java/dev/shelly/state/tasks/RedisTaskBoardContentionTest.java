package dev.shelly.state.tasks;

import dev.shelly.redis.SharedRedis;

/** Runs shelly-state's {@link TaskBoardContentionContract} unchanged on a Redis backend, against a real redis-server. */
class RedisTaskBoardContentionTest extends TaskBoardContentionContract {
    @Override
    protected TaskBackend newBackend() {
        return SharedRedis.backends().taskBackend(SharedRedis.freshName());
    }
}
