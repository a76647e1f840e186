package dev.shelly.agent;

/**
 * Whether one run was cancelled, and the thread its loop runs on while it runs, so that
 * {@link RunContext#cancel()} interrupts that thread and no other: a thread is interrupted only
 * while the run holds it, never after the run let it go (a session's turn thread goes on to
 * other turns). Its own monitor guards the thread: each section is a few writes and an
 * interrupt, never a wait, and a run then carries no lock object.
 */
final class RunCancel {
    private volatile boolean requested;
    private Thread thread; // guarded by this

    boolean requested() {
        return requested;
    }

    /** Marks the run cancelled and interrupts its thread; returns whether it was running. */
    boolean cancel() {
        synchronized (this) {
            requested = true;
            if (thread == null) {
                return false;
            }
            thread.interrupt();
            return true;
        }
    }

    /** The run starts on the current thread; interrupted at once when it was cancelled before. */
    void bind() {
        synchronized (this) {
            thread = Thread.currentThread();
            if (requested) {
                thread.interrupt();
            }
        }
    }

    /** The run let its thread go. */
    void unbind() {
        synchronized (this) {
            thread = null;
        }
    }
}
