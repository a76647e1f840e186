package dev.shelly.agent;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Whether one run was cancelled, and the thread its loop runs on while it runs, so that
 * {@link RunContext#cancel()} interrupts that thread and no other: a thread is interrupted only
 * while the run holds it, never after the run let it go (a session's turn thread goes on to
 * other turns).
 */
final class RunCancel {
    private final ReentrantLock lock = new ReentrantLock();
    private volatile boolean requested;
    private Thread thread; // guarded by lock

    boolean requested() {
        return requested;
    }

    /** Marks the run cancelled and interrupts its thread; returns whether it was running. */
    boolean cancel() {
        lock.lock();
        try {
            requested = true;
            if (thread == null) {
                return false;
            }
            thread.interrupt();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** The run starts on the current thread; interrupted at once when it was cancelled before. */
    void bind() {
        lock.lock();
        try {
            thread = Thread.currentThread();
            if (requested) {
                thread.interrupt();
            }
        } finally {
            lock.unlock();
        }
    }

    /** The run let its thread go. */
    void unbind() {
        lock.lock();
        try {
            thread = null;
        } finally {
            lock.unlock();
        }
    }
}
