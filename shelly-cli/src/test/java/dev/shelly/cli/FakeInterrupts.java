package dev.shelly.cli;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/** Ctrl-C pressed by a test: {@link #press()} runs the action of the trap that is set. */
final class FakeInterrupts implements Interrupts {
    private final AtomicReference<Runnable> action = new AtomicReference<>();

    @Override
    public Trap trap(Runnable onInterrupt) {
        action.set(onInterrupt);
        return () -> action.compareAndSet(onInterrupt, null);
    }

    /**
     * Presses Ctrl-C once a trap is set.
     *
     * @throws AssertionError when no trap is set within the wait
     */
    void press(Duration wait) throws InterruptedException {
        long end = System.nanoTime() + wait.toNanos();
        while (action.get() == null) {
            if (System.nanoTime() > end) {
                throw new AssertionError("no trap for Ctrl-C was set within " + wait);
            }
            Thread.sleep(10);
        }
        action.get().run();
    }
}
