package dev.shelly.state.tasks;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The heartbeat a {@link TaskBoard} runs for the claims made through it: every third of the
 * lease it renews each claim still held, drops those that ended or were lost, and gives back the
 * board's lapsed claims (anyone's). It runs only while the board holds claims, so an idle board
 * costs nothing and a board dropped by its application is not kept alive by it.
 *
 * <p>One timer thread serves every board of the process; each beat runs on a virtual thread of
 * its own, so a backend that answers slowly (a Redis outage) delays no other board's renewals,
 * and a board never runs two beats at once. Thread-safe.
 */
final class LeaseKeeper {
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("shelly-task-leases").factory());

    private final TaskBoard board;
    private final long periodMillis;
    private final Map<String, String> held = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final AtomicBoolean beating = new AtomicBoolean();
    private ScheduledFuture<?> timer;

    LeaseKeeper(TaskBoard board, Duration lease) {
        this.board = board;
        this.periodMillis = Math.max(1, lease.toMillis() / 3);
    }

    /** A claim made through the board: renewed from now on until it ends. */
    void hold(String id, String agent) {
        lock.lock();
        try {
            held.put(id, agent);
            if (timer == null) {
                timer = TIMER.scheduleWithFixedDelay(this::beat, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
            }
        } finally {
            lock.unlock();
        }
    }

    /** A claim that ended (completed, failed, given back) or was lost: no longer renewed. */
    void drop(String id, String agent) {
        held.remove(id, agent);
    }

    /** How many claims are renewed now. */
    int size() {
        return held.size();
    }

    private void beat() {
        if (beating.compareAndSet(false, true)) {
            Thread.ofVirtual().name("shelly-task-lease-renewal").start(this::renewAll);
        }
    }

    private void renewAll() {
        try {
            for (Map.Entry<String, String> claim : held.entrySet()) {
                try {
                    if (!board.renewHeld(claim.getKey(), claim.getValue())) {
                        held.remove(claim.getKey(), claim.getValue());
                    }
                } catch (RuntimeException e) {
                    // The backend did not answer (an outage): the claim stays held and the next beat
                    // tries again; if the outage outlasts the lease, the claim lapses, as it must.
                }
            }
            try {
                board.releaseExpiredClaims();
            } catch (RuntimeException e) {
                // as above: the next beat, or the next claimNext of any board, gives them back
            }
        } finally {
            lock.lock();
            try {
                if (held.isEmpty() && timer != null) {
                    timer.cancel(false);
                    timer = null;
                }
            } finally {
                lock.unlock();
            }
            beating.set(false);
        }
    }
}
