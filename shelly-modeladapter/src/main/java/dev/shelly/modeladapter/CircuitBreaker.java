package dev.shelly.modeladapter;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Keeps a failing provider out of a {@link FallbackCompleter}'s way: after
 * {@code failureThreshold} consecutive failures the circuit opens and the provider is skipped for
 * the cool-down; then one probe request is let through, and its outcome closes the circuit again
 * or opens it for another cool-down. Thread-safe; one breaker per provider, shared by every
 * fallback chain that names the provider.
 *
 * <p>Only failures that another provider could fix count (see
 * {@link FallbackCompleter#fallsBack(ModelException)}); a refused request proves the provider is
 * up, and counts as an answer.
 */
public final class CircuitBreaker {
    /** The default number of consecutive failures that opens the circuit. */
    public static final int DEFAULT_FAILURE_THRESHOLD = 3;
    /** The default time an open circuit skips its provider before a probe. */
    public static final Duration DEFAULT_COOL_DOWN = Duration.ofSeconds(30);

    private final int failureThreshold;
    private final Duration coolDown;
    private final Clock clock;
    // Never held across a call: only the few fields below are read and written under it.
    private final ReentrantLock lock = new ReentrantLock();
    private int consecutiveFailures;
    private Instant openUntil;
    private boolean probing;

    private CircuitBreaker(int failureThreshold, Duration coolDown, Clock clock) {
        if (failureThreshold < 1) {
            throw new IllegalArgumentException("CircuitBreaker.failureThreshold must be at least 1, was "
                    + failureThreshold);
        }
        if (coolDown == null || coolDown.isNegative() || coolDown.isZero()) {
            throw new IllegalArgumentException("CircuitBreaker.coolDown must be positive, was " + coolDown);
        }
        if (clock == null) {
            throw new IllegalArgumentException("CircuitBreaker.clock must not be null");
        }
        this.failureThreshold = failureThreshold;
        this.coolDown = coolDown;
        this.clock = clock;
    }

    /**
     * A breaker with the defaults: open after 3 consecutive failures, for 30 seconds.
     *
     * @return the breaker
     */
    public static CircuitBreaker defaults() {
        return of(DEFAULT_FAILURE_THRESHOLD, DEFAULT_COOL_DOWN);
    }

    /**
     * A breaker on the system clock.
     *
     * @param failureThreshold consecutive failures that open the circuit, at least 1
     * @param coolDown how long an open circuit skips its provider, positive
     * @return the breaker
     */
    public static CircuitBreaker of(int failureThreshold, Duration coolDown) {
        return of(failureThreshold, coolDown, Clock.systemUTC());
    }

    /**
     * A breaker on a clock of your own, for tests.
     *
     * @param failureThreshold consecutive failures that open the circuit, at least 1
     * @param coolDown how long an open circuit skips its provider, positive
     * @param clock the clock that times the cool-down
     * @return the breaker
     */
    public static CircuitBreaker of(int failureThreshold, Duration coolDown, Clock clock) {
        return new CircuitBreaker(failureThreshold, coolDown, clock);
    }

    /**
     * Whether a request may go to the provider now: always while the circuit is closed; once the
     * cool-down is over, for exactly one probe until that probe's outcome is recorded.
     *
     * @return true when the caller may send the request, and must then record its outcome
     */
    boolean tryAcquire() {
        lock.lock();
        try {
            if (openUntil == null) {
                return true;
            }
            if (probing || clock.instant().isBefore(openUntil)) {
                return false;
            }
            probing = true;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Records an answer: the circuit closes and the failure count starts again. */
    void onSuccess() {
        lock.lock();
        try {
            consecutiveFailures = 0;
            openUntil = null;
            probing = false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Records a failure another provider could fix.
     *
     * @return true when this failure opened the circuit (or kept it open after a failed probe)
     */
    boolean onFailure() {
        lock.lock();
        try {
            consecutiveFailures++;
            if (probing || consecutiveFailures >= failureThreshold) {
                probing = false;
                openUntil = clock.instant().plus(coolDown);
                return true;
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** A call let through ended without an outcome (it was cancelled): another probe may go. */
    void release() {
        lock.lock();
        try {
            probing = false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether the provider is being skipped now.
     *
     * @return true while the circuit is open and its cool-down not over, or a probe is out
     */
    public boolean isOpen() {
        lock.lock();
        try {
            return openUntil != null && (probing || clock.instant().isBefore(openUntil));
        } finally {
            lock.unlock();
        }
    }

    /**
     * How long until the next probe may go.
     *
     * @return the time left of the cool-down; zero when closed or when a probe may go now
     */
    Duration remaining() {
        lock.lock();
        try {
            if (openUntil == null) {
                return Duration.ZERO;
            }
            Duration left = Duration.between(clock.instant(), openUntil);
            return left.isNegative() ? Duration.ZERO : left;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The consecutive failures the circuit opens after.
     *
     * @return the threshold
     */
    public int failureThreshold() {
        return failureThreshold;
    }

    /**
     * How long an open circuit skips its provider.
     *
     * @return the cool-down
     */
    public Duration coolDown() {
        return coolDown;
    }

    @Override
    public String toString() {
        return "CircuitBreaker[failureThreshold=" + failureThreshold + ", coolDown=" + coolDown + ", open=" + isOpen() + "]";
    }
}
