package dev.shelly.modeladapter;

import java.util.function.LongSupplier;

/**
 * Decides when a model request may start, so that everything sharing the limiter stays under a
 * provider's {@link RateLimit}: requests per minute and, optionally, tokens per minute. This is
 * the SPI behind {@link RateLimitedCompleter}.
 *
 * <p>The default, {@link #inProcess(RateLimit)}, counts in this JVM. A limiter shared by every
 * instance of a service (such as the Redis one of {@code shelly-redis}) implements the same two
 * steps against a shared store.
 *
 * <p>The contract:
 * <ul>
 *   <li>{@link #acquire()} blocks until a request may start and takes its slot; it is safe from
 *       many threads at once, and of all callers sharing the limit, starts are spaced at least
 *       {@link RateLimit#intervalNanos()} apart;</li>
 *   <li>while tokens are limited, {@code acquire()} also waits while the tokens charged in the
 *       last minute are at the limit; since a request's tokens are known only after it, one
 *       request can take the count above the limit, and later ones wait for that to drain;</li>
 *   <li>{@link #charge(long)} adds the tokens a finished request used;</li>
 *   <li>a wait answers interrupts: {@code acquire()} throws {@link InterruptedException} and the
 *       slot it had not yet reached is lost, never given twice.</li>
 * </ul>
 */
public interface RateLimiter {

    /**
     * Blocks until a request may start, and takes its slot.
     *
     * @throws InterruptedException when the waiting thread is interrupted
     */
    void acquire() throws InterruptedException;

    /**
     * Charges the tokens a finished request used; does nothing while tokens are not limited.
     *
     * @param tokens the tokens, 0 or more
     */
    void charge(long tokens);

    /**
     * The limit this limiter keeps.
     *
     * @return the limit
     */
    RateLimit limit();

    /**
     * A limiter that counts in this JVM.
     *
     * @param limit the limit
     * @return the limiter
     */
    static RateLimiter inProcess(RateLimit limit) {
        return new LocalRateLimiter(limit, System::nanoTime, Sleeper.SYSTEM);
    }

    /**
     * A limiter that counts in this JVM with a given clock and sleeper, for tests.
     *
     * @param limit the limit
     * @param nanoClock a monotonic clock in nanoseconds
     * @param sleeper waits
     * @return the limiter
     */
    static RateLimiter inProcess(RateLimit limit, LongSupplier nanoClock, Sleeper sleeper) {
        return new LocalRateLimiter(limit, nanoClock, sleeper);
    }
}
