package dev.shelly.state;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Something that changes and can be waited on: a revision number that grows with every write,
 * and a way to block until it grows.
 *
 * <p>This is how a waiter avoids missing a write: it reads {@link #revision()} first, then
 * checks what it waits for, and only then calls {@link #awaitChange} with the revision it read.
 * A write that lands between the check and the wait has already raised the revision, so the
 * wait returns at once. {@link #await} runs that loop.
 *
 * <p>The contract for implementations (in-process or shared, like Redis or a database):
 * <ul>
 *   <li>{@code revision()} never decreases and is raised by every write, after the write is
 *       visible to readers;</li>
 *   <li>{@code awaitChange(seen, timeout)} returns once {@code revision() > seen} (at once when
 *       that holds already), or when the timeout has passed; it may also return early for no
 *       reason, so a polling implementation is allowed;</li>
 *   <li>it throws {@link InterruptedException} promptly when the waiting thread is interrupted,
 *       including when the thread is already interrupted on entry.</li>
 * </ul>
 */
public interface Watchable {

    /**
     * The current revision: it grows with every write.
     *
     * @return the revision
     */
    long revision();

    /**
     * Blocks until the revision exceeds {@code seen}, or the timeout passes; may return early.
     *
     * @param seen the revision the caller last read
     * @param timeout how long to wait at most; zero or negative means not at all
     * @return the revision on return
     * @throws InterruptedException when the waiting thread is interrupted
     */
    long awaitChange(long seen, Duration timeout) throws InterruptedException;

    /**
     * Re-evaluates {@code probe} after every change until it yields a value or the timeout
     * passes. Returns at once when the probe yields a value on the first try; never holds a lock
     * while it waits.
     *
     * @param <T> what the probe yields
     * @param probe reads what the caller waits for; empty while it is not there yet
     * @param timeout how long to wait at most; zero or negative means one check without waiting
     * @return the probe's value, or empty when the timeout passed first
     * @throws InterruptedException when the waiting thread is interrupted
     */
    default <T> Optional<T> await(Supplier<Optional<T>> probe, Duration timeout) throws InterruptedException {
        if (probe == null || timeout == null) {
            throw new IllegalArgumentException("Watchable.await needs a probe and a timeout");
        }
        long deadline = System.nanoTime() + Math.max(0, TimeUnit.NANOSECONDS.convert(timeout));
        while (true) {
            long seen = revision();
            Optional<T> found = probe.get();
            if (found.isPresent()) {
                return found;
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return Optional.empty();
            }
            awaitChange(seen, Duration.ofNanos(remaining));
        }
    }
}
