package dev.shelly.state;

import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

/** Test helper: runs a blocking call on a virtual thread and returns once that thread is parked in it. */
public final class Waiting {
    private Waiting() {}

    /**
     * A call running on its own thread.
     *
     * @param <T> what the call returns
     * @param thread the thread, to interrupt
     * @param result the call's outcome
     */
    public record Blocked<T>(Thread thread, FutureTask<T> result) {}

    /**
     * Starts the call on a virtual thread and returns once that thread waits (with or without a
     * timeout), so that a test exercises the blocking path rather than the fast one.
     *
     * @param <T> what the call returns
     * @param call the blocking call
     * @return the running call
     * @throws InterruptedException when the test thread is interrupted
     */
    public static <T> Blocked<T> start(Callable<T> call) throws InterruptedException {
        FutureTask<T> result = new FutureTask<>(call);
        Thread t = Thread.ofVirtual().start(result);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
            if (result.isDone()) {
                throw new AssertionError("the call returned without blocking");
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("thread never started waiting: " + t.getState());
            }
            Thread.sleep(1);
        }
        return new Blocked<>(t, result);
    }
}
