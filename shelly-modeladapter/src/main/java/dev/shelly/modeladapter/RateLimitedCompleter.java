package dev.shelly.modeladapter;

import dev.shelly.modeladapter.RetryingCompleter.Sleeper;
import java.util.concurrent.CancellationException;
import java.util.function.LongSupplier;

/**
 * A completer that starts a request only when its {@link RateLimiter} allows, so that many
 * agents sharing one provider stay under its rate limit instead of collecting 429s.
 *
 * <p>By default the limiter counts in this JVM ({@link RateLimiter#inProcess}); give a shared
 * one (such as {@code shelly-redis}'s) to make every instance of a service count together. After
 * each reply, the tokens its {@link Usage} reports are charged to the limiter.
 *
 * <p>Callers take the next free start time in arrival order and wait for it; the wait answers
 * interrupts (a {@link CancellationException}, the interrupt flag kept). Nothing is held while
 * waiting, so thousands of virtual threads may queue.
 */
public final class RateLimitedCompleter implements Completer {
    private final Completer delegate;
    private final RateLimiter limiter;

    private RateLimitedCompleter(Completer delegate, RateLimiter limiter) {
        if (delegate == null) {
            throw new IllegalArgumentException("RateLimitedCompleter needs a completer to limit");
        }
        if (limiter == null) {
            throw new IllegalArgumentException("RateLimitedCompleter needs a rate limiter");
        }
        this.delegate = delegate;
        this.limiter = limiter;
    }

    /**
     * Limits a completer with an in-process limiter.
     *
     * @param delegate the completer
     * @param requestsPerMinute how many requests may start per minute
     * @return the limited completer
     */
    public static RateLimitedCompleter of(Completer delegate, int requestsPerMinute) {
        return new RateLimitedCompleter(delegate, RateLimiter.inProcess(requestsPerMinuteOf(requestsPerMinute)));
    }

    /**
     * Limits a completer with an in-process limiter on a given clock and sleeper, for tests.
     *
     * @param delegate the completer
     * @param requestsPerMinute how many requests may start per minute
     * @param nanoClock a monotonic clock in nanoseconds
     * @param sleeper waits
     * @return the limited completer
     */
    public static RateLimitedCompleter of(Completer delegate, int requestsPerMinute, LongSupplier nanoClock,
            Sleeper sleeper) {
        return new RateLimitedCompleter(delegate,
                RateLimiter.inProcess(requestsPerMinuteOf(requestsPerMinute), nanoClock, sleeper));
    }

    /**
     * Limits a completer with a limiter: an in-process one, or one shared by several processes.
     *
     * @param delegate the completer
     * @param limiter decides when each request may start
     * @return the limited completer
     */
    public static RateLimitedCompleter of(Completer delegate, RateLimiter limiter) {
        return new RateLimitedCompleter(delegate, limiter);
    }

    private static RateLimit requestsPerMinuteOf(int requestsPerMinute) {
        if (requestsPerMinute < 1) {
            throw new IllegalArgumentException("RateLimitedCompleter requestsPerMinute must be at least 1, was "
                    + requestsPerMinute);
        }
        return RateLimit.requestsPerMinute(requestsPerMinute);
    }

    @Override
    public ModelTarget target() {
        return delegate.target();
    }

    @Override
    public ModelResponse complete(ModelRequest request) {
        awaitTurn();
        return charged(delegate.complete(request));
    }

    @Override
    public ModelResponse complete(ModelRequest request, StreamListener listener) {
        awaitTurn();
        return charged(delegate.complete(request, listener));
    }

    private ModelResponse charged(ModelResponse response) {
        if (response != null) {
            limiter.charge(response.usage().totalTokens());
        }
        return response;
    }

    private void awaitTurn() {
        try {
            limiter.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while waiting for a rate-limit slot");
        }
    }

    @Override
    public String toString() {
        return "RateLimitedCompleter[" + limiter + ", " + delegate + "]";
    }

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
}
