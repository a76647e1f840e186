package dev.shelly.modeladapter;

import dev.shelly.modeladapter.RateLimitedCompleter.RateLimiter;
import dev.shelly.modeladapter.RetryingCompleter.Sleeper;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The in-process {@link RateLimiter}. Requests: callers take the next free start time in arrival
 * order ({@code interval} apart) and wait for it. Tokens: a "generic cell rate" schedule: every
 * charged token pushes a point in time, {@code tokensDue}, forward by {@code 60 s / tokensPerMinute};
 * a request may start once {@code tokensDue} is at most one minute ahead of now, which allows a
 * burst of one minute's tokens and then the steady rate. Nothing is held while waiting.
 */
final class LocalRateLimiter implements RateLimiter {
    private static final long MINUTE = 60_000_000_000L;

    private final RateLimit limit;
    private final LongSupplier nanoClock;
    private final Sleeper sleeper;
    private final ReentrantLock lock = new ReentrantLock();
    private boolean started;
    private long nextStart;
    private long tokensDue;

    LocalRateLimiter(RateLimit limit, LongSupplier nanoClock, Sleeper sleeper) {
        if (limit == null || nanoClock == null || sleeper == null) {
            throw new IllegalArgumentException("an in-process RateLimiter needs a limit, a clock and a sleeper");
        }
        this.limit = limit;
        this.nanoClock = nanoClock;
        this.sleeper = sleeper;
    }

    @Override
    public void acquire() throws InterruptedException {
        long start;
        lock.lock();
        try {
            long now = nanoClock.getAsLong();
            startIfNew(now);
            start = nextStart - now < 0 ? now : nextStart;
            if (limit.limitsTokens() && tokensDue - MINUTE - start > 0) {
                start = tokensDue - MINUTE;
            }
            nextStart = start + limit.intervalNanos();
        } finally {
            lock.unlock();
        }
        long wait = start - nanoClock.getAsLong();
        if (wait > 0) {
            sleeper.sleep(Duration.ofNanos(wait));
        }
    }

    @Override
    public void charge(long tokens) {
        if (tokens < 0) {
            throw new IllegalArgumentException("RateLimiter.charge tokens must not be negative, was " + tokens);
        }
        if (!limit.limitsTokens() || tokens == 0) {
            return;
        }
        lock.lock();
        try {
            long now = nanoClock.getAsLong();
            startIfNew(now);
            long base = tokensDue - now < 0 ? now : tokensDue;
            tokensDue = base + (long) ((double) tokens * MINUTE / limit.tokensPerMinute());
        } finally {
            lock.unlock();
        }
    }

    private void startIfNew(long now) {
        if (!started) {
            started = true;
            nextStart = now;
            tokensDue = now;
        }
    }

    @Override
    public RateLimit limit() {
        return limit;
    }

    @Override
    public String toString() {
        return "RateLimiter[in-process, " + limit.requestsPerMinute() + " requests/min"
                + (limit.limitsTokens() ? ", " + limit.tokensPerMinute() + " tokens/min" : "") + "]";
    }
}
