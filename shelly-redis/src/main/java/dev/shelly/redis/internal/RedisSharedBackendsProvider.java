package dev.shelly.redis.internal;

import dev.shelly.storage.spi.RedisConfig;
import dev.shelly.redis.RedisBackends;
import dev.shelly.storage.spi.SharedBackends;
import dev.shelly.storage.spi.SharedBackendsProvider;

/**
 * What makes a {@code redis:} section of {@code .shelly/config.yaml} work: the engine finds this
 * class with {@link java.util.ServiceLoader} (it is registered in
 * {@code META-INF/services/dev.shelly.storage.spi.SharedBackendsProvider}) and opens
 * {@link RedisBackends} with it. Internal: not exported, the module path reaches it through {@code provides}.
 */
public final class RedisSharedBackendsProvider implements SharedBackendsProvider {

    /** Made by the {@link java.util.ServiceLoader}. */
    public RedisSharedBackendsProvider() {}

    @Override
    public SharedBackends open(RedisConfig config) {
        return RedisBackends.open(config);
    }
}
