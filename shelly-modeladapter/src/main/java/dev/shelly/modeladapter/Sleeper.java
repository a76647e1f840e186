package dev.shelly.modeladapter;

import java.time.Duration;

/**
 * Waits between retries. The default sleeps on the calling thread; tests pass one that records
 * the delays instead of waiting.
 */
@FunctionalInterface
public interface Sleeper {

    /** Sleeps with {@link Thread#sleep(Duration)}, answering interrupts at once. */
    Sleeper SYSTEM = Thread::sleep;

    /**
     * Waits for a while.
     *
     * @param delay how long to wait; zero or negative returns at once
     * @throws InterruptedException when the waiting thread is interrupted
     */
    void sleep(Duration delay) throws InterruptedException;
}
