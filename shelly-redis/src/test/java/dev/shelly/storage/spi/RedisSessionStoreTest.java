package dev.shelly.storage.spi;

import dev.shelly.redis.SharedRedis;

/** Runs shelly-engine's {@link SessionStoreContract} unchanged on the Redis session store, against a real redis-server. */
class RedisSessionStoreTest extends SessionStoreContract {
    @Override
    protected SessionStore openStore(String place) {
        return SharedRedis.backends().sessionStore(place);
    }
}
