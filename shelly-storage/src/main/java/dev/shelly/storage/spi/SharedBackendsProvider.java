package dev.shelly.storage.spi;

import dev.shelly.storage.spi.RedisConfig;

/**
 * Opens {@link SharedBackends} for a {@code redis:} section. The engine finds the implementation
 * with {@link java.util.ServiceLoader} ({@code dev.shelly:shelly-redis} registers one in
 * {@code META-INF/services/dev.shelly.storage.spi.SharedBackendsProvider}), so that the engine does
 * not depend on the Redis module: the arrow points from shelly-redis to this interface.
 */
public interface SharedBackendsProvider {

    /**
     * Connects to the configured server.
     *
     * @param config the {@code redis:} section
     * @return the open backends
     * @throws dev.shelly.chats.ShellyException when the server cannot be reached or refuses the
     *     connection; the message names the server without its password
     */
    SharedBackends open(RedisConfig config);
}
