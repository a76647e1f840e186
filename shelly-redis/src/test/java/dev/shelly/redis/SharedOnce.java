package dev.shelly.redis;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A test fixture made on first use, once for the test JVM (a failed start is tried again by the
 * next use, which then reports its own failure).
 *
 * @param <T> the fixture
 */
final class SharedOnce<T> {
    private final ReentrantLock lock = new ReentrantLock();
    private final Supplier<T> make;
    private T value;

    private SharedOnce(Supplier<T> make) {
        this.make = make;
    }

    /** A fixture made by {@code make}. */
    static <T> SharedOnce<T> of(Supplier<T> make) {
        return new SharedOnce<>(make);
    }

    /** A server made by {@code start}, stopped by {@code stop} when the test JVM exits. */
    static <T> SharedOnce<T> stoppedAtExit(Supplier<T> start, Consumer<T> stop) {
        return new SharedOnce<>(() -> {
            T started = start.get();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> stop.accept(started)));
            return started;
        });
    }

    T get() {
        lock.lock();
        try {
            if (value == null) {
                value = make.get();
            }
            return value;
        } finally {
            lock.unlock();
        }
    }
}
