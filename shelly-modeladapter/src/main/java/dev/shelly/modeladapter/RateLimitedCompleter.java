package dev.shelly.modeladapter;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolDefinition;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * A completer that starts at most a given number of requests per minute, spacing them evenly,
 * so that many agents sharing one provider stay under its rate limit instead of collecting
 * 429s.
 *
 * <p>Callers take the next free start time in arrival order and wait for it; the wait answers
 * interrupts (a {@link CancellationException}, the interrupt flag kept). Nothing is held while
 * waiting, so thousands of virtual threads may queue.
 */
public final class RateLimitedCompleter implements Completer {
    private final Completer delegate;
    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private final Sleeper sleeper;
    private final ReentrantLock lock = new ReentrantLock();
    private long nextStart = Long.MIN_VALUE;

    private RateLimitedCompleter(Completer delegate, int requestsPerMinute, LongSupplier nanoClock, Sleeper sleeper) {
        if (delegate == null) {
            throw new IllegalArgumentException("RateLimitedCompleter needs a completer to limit");
        }
        if (requestsPerMinute < 1) {
            throw new IllegalArgumentException("RateLimitedCompleter requestsPerMinute must be at least 1, was "
                    + requestsPerMinute);
        }
        if (nanoClock == null || sleeper == null) {
            throw new IllegalArgumentException("RateLimitedCompleter needs a clock and a sleeper");
        }
        this.delegate = delegate;
        this.intervalNanos = Duration.ofMinutes(1).toNanos() / requestsPerMinute;
        this.nanoClock = nanoClock;
        this.sleeper = sleeper;
    }

    /**
     * Limits a completer.
     *
     * @param delegate the completer
     * @param requestsPerMinute how many requests may start per minute
     * @return the limited completer
     */
    public static RateLimitedCompleter of(Completer delegate, int requestsPerMinute) {
        return new RateLimitedCompleter(delegate, requestsPerMinute, System::nanoTime, Sleeper.SYSTEM);
    }

    /**
     * Limits a completer with a given clock and sleeper, for tests.
     *
     * @param delegate the completer
     * @param requestsPerMinute how many requests may start per minute
     * @param nanoClock a monotonic clock in nanoseconds
     * @param sleeper waits
     * @return the limited completer
     */
    public static RateLimitedCompleter of(Completer delegate, int requestsPerMinute, LongSupplier nanoClock,
            Sleeper sleeper) {
        return new RateLimitedCompleter(delegate, requestsPerMinute, nanoClock, sleeper);
    }

    @Override
    public Message complete(Chat chat, List<ToolDefinition> tools) {
        awaitTurn();
        return delegate.complete(chat, tools);
    }

    @Override
    public Message complete(Chat chat, List<ToolDefinition> tools, StreamListener listener) {
        awaitTurn();
        return delegate.complete(chat, tools, listener);
    }

    private void awaitTurn() {
        long start;
        lock.lock();
        try {
            long now = nanoClock.getAsLong();
            start = nextStart == Long.MIN_VALUE || nextStart - now < 0 ? now : nextStart;
            nextStart = start + intervalNanos;
        } finally {
            lock.unlock();
        }
        long wait = start - nanoClock.getAsLong();
        if (wait > 0) {
            try {
                sleeper.sleep(Duration.ofNanos(wait));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CancellationException("interrupted while waiting for a rate-limit slot");
            }
        }
    }

    @Override
    public String toString() {
        return "RateLimitedCompleter[" + Duration.ofMinutes(1).toNanos() / intervalNanos + "/min, " + delegate + "]";
    }
}
