package dev.shelly.state.tasks;

import dev.shelly.redis.SharedRedis;

/** Runs shelly-state's {@link TaskBoardContract} unchanged on a Redis backend, against a real redis-server. */
class RedisTaskBoardTest extends TaskBoardContract {
    @Override
    protected TaskBackend newBackend() {
        return SharedRedis.backends().taskBackend(SharedRedis.freshName());
    }
}
