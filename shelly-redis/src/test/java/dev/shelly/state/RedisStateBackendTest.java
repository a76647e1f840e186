package dev.shelly.state;

import dev.shelly.redis.SharedRedis;

/** Runs shelly-state's {@link StateBackendContract} unchanged on a Redis backend, against a real redis-server. */
class RedisStateBackendTest extends StateBackendContract {
    @Override
    protected StateBackend newBackend() {
        return SharedRedis.backends().stateBackend(SharedRedis.freshName());
    }
}
