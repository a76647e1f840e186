package dev.shelly.state.tasks;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The claims a {@link TaskBoard} made, by their tokens, and the heartbeat that renews them: every
 * third of the lease it renews each claim still held, drops those that ended or were lost, and
 * gives back the board's lapsed claims (anyone's). It runs only while the board holds claims,
 * so an idle board costs nothing and a board dropped by its application is not kept alive by it.
 *
 * <p>A claim that ended without the board finishing it (given back, or lost when its lease
 * lapsed) keeps its token here for a while, so that a late completion by the same agent is
 * refused even when the task was claimed again by an agent of the same name elsewhere.
 *
 * <p>One timer thread serves every board of the process; each beat runs on a virtual thread of
 * its own, so a backend that answers slowly (a Redis outage) delays no other board's renewals,
 * and a board never runs two beats at once. Thread-safe.
 */
final class LeaseKeeper {
    /** How many ended claims a board remembers at most, the oldest forgotten first. */
    static final int ENDED_AT_MOST = 10_000;
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("shelly-task-leases").factory());

    /** A claim the board made: the claiming agent and the claim's token. */
    record Claim(String agent, String token) {}

    private final TaskBoard board;
    private final long periodMillis;
    private final boolean beats;
    private final Map<String, Claim> held = new ConcurrentHashMap<>();
    /** Claims that ended without the board finishing the task; guarded by {@link #lock}. */
    private final Map<String, Claim> ended = new LinkedHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final AtomicBoolean beating = new AtomicBoolean();
    private ScheduledFuture<?> timer;

    LeaseKeeper(TaskBoard board, Duration lease, boolean beats) {
        this.board = board;
        this.periodMillis = Math.max(1, lease.toMillis() / 3);
        this.beats = beats;
    }

    /** A claim made through the board: renewed from now on (with a heartbeat) until it ends. */
    void hold(String id, String agent, String token) {
        lock.lock();
        try {
            ended.remove(id);
            held.put(id, new Claim(agent, token));
            if (beats && timer == null) {
                timer = TIMER.scheduleWithFixedDelay(this::beat, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The board's latest claim of a task, held or ended, or null when it made none (or forgot it). */
    Claim claimOf(String id) {
        Claim claim = held.get(id);
        if (claim != null) {
            return claim;
        }
        lock.lock();
        try {
            return ended.get(id);
        } finally {
            lock.unlock();
        }
    }

    /** A task that is final now: nothing of it to renew or remember. */
    void finished(String id) {
        lock.lock();
        try {
            held.remove(id);
            ended.remove(id);
        } finally {
            lock.unlock();
        }
    }

    /** A claim that ended without the task being finished here (given back, or lost): no longer renewed. */
    void ended(String id, String token) {
        lock.lock();
        try {
            Claim claim = held.get(id);
            if (claim != null && claim.token().equals(token)) {
                held.remove(id);
                ended.put(id, claim);
                if (ended.size() > ENDED_AT_MOST) {
                    ended.remove(ended.keySet().iterator().next());
                }
            }
        } finally {
            lock.unlock();
        }
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
            for (Map.Entry<String, Claim> claim : held.entrySet()) {
                try {
                    if (!board.renewHeld(claim.getKey(), claim.getValue().token())) {
                        ended(claim.getKey(), claim.getValue().token());
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
