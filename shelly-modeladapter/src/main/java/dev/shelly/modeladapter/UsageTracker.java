package dev.shelly.modeladapter;

import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Counts the tokens of many completions; safe for many threads.
 *
 * <p>Each provider records every completion here, streamed or not; several agents may share
 * one tracker to account for a whole run.
 */
public final class UsageTracker {
    private final ReentrantLock lock = new ReentrantLock();
    private Usage total = Usage.ZERO;
    private Usage last;
    private long count;

    /** An empty tracker. */
    public UsageTracker() {}

    /**
     * Records one completion's usage.
     *
     * @param usage the usage
     */
    public void add(Usage usage) {
        if (usage == null) {
            throw new IllegalArgumentException("UsageTracker.add usage must not be null");
        }
        lock.lock();
        try {
            total = total.plus(usage);
            last = usage;
            count++;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The usage recorded last.
     *
     * @return the last usage, or empty when nothing was recorded since the last reset
     */
    public Optional<Usage> last() {
        lock.lock();
        try {
            return Optional.ofNullable(last);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The sum of everything recorded.
     *
     * @return the total, {@link Usage#ZERO} when empty
     */
    public Usage total() {
        lock.lock();
        try {
            return total;
        } finally {
            lock.unlock();
        }
    }

    /**
     * How many usages were recorded.
     *
     * @return the count
     */
    public long count() {
        lock.lock();
        try {
            return count;
        } finally {
            lock.unlock();
        }
    }

    /** Forgets everything recorded. */
    public void reset() {
        lock.lock();
        try {
            total = Usage.ZERO;
            last = null;
            count = 0;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "UsageTracker[count=" + count() + ", total=" + total() + "]";
    }
}
