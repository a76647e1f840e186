package dev.shelly.storage.spi;

import dev.shelly.modeladapter.RateLimit;
import dev.shelly.modeladapter.RateLimitedCompleter.RateLimiter;
import dev.shelly.state.StateBackend;
import dev.shelly.state.tasks.TaskBackend;

/**
 * Backends that several engine instances share, opened from the {@code redis:} section of the
 * configuration by a {@link SharedBackendsProvider}: the blackboard's entries, the task board's
 * tasks, the sessions and the providers' rate limits. The engine closes it when it closes.
 */
public interface SharedBackends extends AutoCloseable {

    /**
     * Where the engine's blackboard (the {@code state} toolbox) keeps its entries.
     *
     * @return the backend
     */
    StateBackend state();

    /**
     * Where the engine's task board (the {@code tasks} toolbox) keeps its tasks.
     *
     * @return the backend
     */
    TaskBackend tasks();

    /**
     * Where the engine keeps its sessions: a store that keeps the {@link SessionStore} contract
     * across every engine and process sharing these backends (one holder per session, versioned
     * saves, a lease that comes free by itself when its holder dies).
     *
     * @return the store, the same one on every call
     */
    SessionStore sessions();

    /**
     * A rate limiter that every instance naming the same provider shares.
     *
     * @param provider the configured provider's name
     * @param limit its limit
     * @return the limiter
     */
    RateLimiter rateLimiter(String provider, RateLimit limit);

    /** Releases the connections; the backends handed out stop working. */
    @Override
    void close();
}
