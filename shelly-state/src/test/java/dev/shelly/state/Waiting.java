package dev.shelly.state;

import java.util.concurrent.TimeUnit;

/** Test helper: lets a test wait until another thread is blocked, so that it exercises the blocking path. */
public final class Waiting {
    private Waiting() {}

    /**
     * Returns once the thread is parked (waiting, with or without a timeout).
     *
     * @param t the thread
     * @throws InterruptedException when the test thread is interrupted
     */
    public static void untilBlocked(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("thread never started waiting: " + t.getState());
            }
            Thread.sleep(1);
        }
    }
}
