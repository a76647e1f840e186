package dev.shelly.storage.spi;

/**
 * Opens {@link SharedBackends} for a {@code redis:} section. The engine finds the implementation
 * with {@link java.util.ServiceLoader} ({@code dev.shelly:shelly-redis} registers one in
 * {@code META-INF/services/dev.shelly.storage.spi.SharedBackendsProvider}), so that neither depends
 * on the other: both arrows point down to this interface, below the engine.
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
