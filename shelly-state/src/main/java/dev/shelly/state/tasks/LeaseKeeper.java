package dev.shelly.state.tasks;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p>When the backend does not answer (an outage, or it was closed), a claim stays held and each
 * beat tries again, until its lease ends without a renewal: then the claim is dropped as lost (it
 * lapsed; another worker may take the task), so the heartbeat stops once every claim lapsed. An
 * outage is logged once, at WARN, when a beat first fails; a beat that gets through again ends it
 * (at INFO).
 *
 * <p>One timer thread serves every board of the process; each beat runs on a virtual thread of
 * its own, so a backend that answers slowly (a Redis outage) delays no other board's renewals,
 * and a board never runs two beats at once. Thread-safe.
 */
final class LeaseKeeper {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);
    /** How many ended claims a board remembers at most, the oldest forgotten first. */
    static final int ENDED_AT_MOST = 10_000;
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("shelly-task-leases").factory());

    /** A claim the board made: the claiming agent, the claim's token, and when its lease ends. */
    record Claim(String agent, String token, Instant until) {}

    private final TaskBoard board;
    private final long periodMillis;
    private final boolean beats;
    private final Map<String, Claim> held = new ConcurrentHashMap<>();
    /** Claims that ended without the board finishing the task; guarded by {@link #lock}. */
    private final Map<String, Claim> ended = new LinkedHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final AtomicBoolean beating = new AtomicBoolean();
    private final AtomicBoolean outage = new AtomicBoolean();
    private ScheduledFuture<?> timer;

    LeaseKeeper(TaskBoard board, Duration lease, boolean beats) {
        this.board = board;
        this.periodMillis = Math.max(1, lease.toMillis() / 3);
        this.beats = beats;
    }

    /** A claim made through the board: renewed from now on (with a heartbeat) until it ends. */
    void hold(String id, String agent, String token, Instant until) {
        lock.lock();
        try {
            ended.remove(id);
            held.put(id, new Claim(agent, token, until));
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
        RuntimeException failure = null;
        int failed = 0;
        try {
            for (Map.Entry<String, Claim> entry : held.entrySet()) {
                String id = entry.getKey();
                Claim claim = entry.getValue();
                try {
                    Instant until = board.renewHeld(id, claim.token());
                    if (until == null) {
                        ended(id, claim.token());
                    } else {
                        held.replace(id, claim, new Claim(claim.agent(), claim.token(), until));
                    }
                } catch (RuntimeException e) {
                    // The backend did not answer: the claim stays held and the next beat tries
                    // again, until its lease has ended without a renewal: then it lapsed.
                    failure = e;
                    failed++;
                    if (!board.now().isBefore(claim.until())) {
                        ended(id, claim.token());
                    }
                }
            }
            try {
                board.releaseExpiredClaims();
            } catch (RuntimeException e) {
                // as above: the next beat, or the next claimNext of any board, gives them back
                failure = failure == null ? e : failure;
            }
            if (failure != null && outage.compareAndSet(false, true)) {
                LOG.warn("{} cannot renew its claims ({} failed): {}; a claim whose lease ends before a renewal "
                        + "gets through lapses", board, failed, failure.toString());
            } else if (failure == null && outage.compareAndSet(true, false)) {
                LOG.info("{} renews its claims again", board);
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
