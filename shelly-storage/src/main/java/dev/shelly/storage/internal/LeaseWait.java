package dev.shelly.storage.internal;

import dev.shelly.storage.SessionBusyException;
import dev.shelly.storage.spi.SessionStore;
import java.time.Duration;
import java.util.concurrent.CancellationException;

/**
 * The bookkeeping of one {@link SessionStore#open} call, whatever holds the session (a file lock,
 * a Redis key): the checked arguments, the deadline of the wait, and the two ways it ends without
 * a lease, worded the same by every store. A store makes one per call and asks it how much time is
 * left while it waits in its own way.
 *
 * <p>Not thread-safe: it belongs to the thread that opens.
 */
public final class LeaseWait {
    private final String id;
    private final Duration wait;
    private final long deadline;

    private LeaseWait(String id, Duration wait) {
        this.id = id;
        this.wait = wait;
        this.deadline = System.nanoTime() + nanos(wait);
    }

    /**
     * Checks the arguments of an open and starts its wait now.
     *
     * @param store the store's name, for the messages (e.g. {@code "FileSessionStore"})
     * @param id the session's id, checked by {@link SessionIds#check}
     * @param wait how long the open may wait; zero to try once
     * @return the wait
     * @throws IllegalArgumentException when the id is not valid or the wait is null or negative
     */
    public static LeaseWait start(String store, String id, Duration wait) {
        SessionIds.check(id, store + ".open id");
        if (wait == null || wait.isNegative()) {
            throw new IllegalArgumentException(store + ".open wait for session '" + id + "' must be zero or positive, was "
                    + wait);
        }
        return new LeaseWait(id, wait);
    }

    /**
     * The session waited for.
     *
     * @return its id
     */
    public String id() {
        return id;
    }

    /**
     * The whole wait, as given: the most a store's first blocking attempt may take (a wait on a
     * permit, say), before it checks the deadline.
     *
     * @return the wait in nanoseconds (saturated: a very long wait is {@link Long#MAX_VALUE})
     */
    public long totalNanos() {
        return nanos(wait);
    }

    /**
     * What is left of the wait.
     *
     * @return the nanoseconds left; zero or less when the wait is over
     */
    public long leftNanos() {
        return deadline - System.nanoTime();
    }

    /**
     * The error of a wait that ran out: the session is held by someone else.
     *
     * @return the exception, naming this session only
     */
    public SessionBusyException busy() {
        return new SessionBusyException(id, "session '" + id + "' is held by another engine or process"
                + (wait.isZero() ? "" : " and did not come free within " + wait.toMillis() + " ms"));
    }

    /**
     * The error of a wait that was interrupted; sets the thread's interrupt flag again, which the
     * blocking call that noticed the interrupt has cleared.
     *
     * @return the exception to throw
     */
    public CancellationException interrupted() {
        Thread.currentThread().interrupt();
        return new CancellationException("interrupted while waiting for session '" + id + "'");
    }

    private static long nanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    @Override
    public String toString() {
        return "LeaseWait[" + id + ", " + wait + "]";
    }
}
