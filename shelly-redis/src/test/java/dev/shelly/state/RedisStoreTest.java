package dev.shelly.state;

import dev.shelly.redis.SharedRedis;

/** Runs shelly-state's {@link StoreContract} unchanged on a Redis backend, against a real redis-server. */
class RedisStoreTest extends StoreContract {
    @Override
    protected StateBackend newBackend() {
        return SharedRedis.backends().stateBackend(SharedRedis.freshName());
    }
}
