package dev.shelly.state;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An in-process {@link Watchable}: a revision counter that writers raise with {@link #bump()}
 * and that any number of threads can wait on.
 *
 * <p>A writer changes its data first and bumps afterwards; every bump wakes every waiter.
 * Waiting uses a {@link Condition}, never a monitor, so a waiting virtual thread does not pin
 * its carrier, and no lock is held while a caller blocks. Thread-safe.
 */
public final class ChangeSignal implements Watchable {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private volatile long revision;

    /** A signal at revision 0. */
    public ChangeSignal() {}

    @Override
    public long revision() {
        return revision;
    }

    /**
     * Raises the revision and wakes every waiter. Call it after the change is visible.
     *
     * @return the new revision
     */
    public long bump() {
        lock.lock();
        try {
            long next = revision + 1;
            revision = next;
            changed.signalAll();
            return next;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long awaitChange(long seen, Duration timeout) throws InterruptedException {
        if (timeout == null) {
            throw new IllegalArgumentException("ChangeSignal.awaitChange timeout must not be null");
        }
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted while waiting for a change");
        }
        long nanos = TimeUnit.NANOSECONDS.convert(timeout); // saturates instead of overflowing
        long now = revision;
        if (now > seen || nanos <= 0) {
            return now;
        }
        lock.lockInterruptibly();
        try {
            while (revision <= seen && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            return revision;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "ChangeSignal[revision " + revision + "]";
    }
}
