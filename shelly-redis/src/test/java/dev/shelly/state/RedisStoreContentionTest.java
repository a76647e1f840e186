package dev.shelly.state;

import dev.shelly.redis.SharedRedis;

/** Runs shelly-state's {@link StoreContentionContract} unchanged on a Redis backend, against a real redis-server. */
class RedisStoreContentionTest extends StoreContentionContract {
    @Override
    protected StateBackend newBackend() {
        return SharedRedis.backends().stateBackend(SharedRedis.freshName());
    }

    /** A 25th: every compare-and-set is a round trip, and 64 threads retry on one key. */
    @Override
    protected int rounds(int inMemory) {
        return Math.max(4, inMemory / 25);
    }
}
