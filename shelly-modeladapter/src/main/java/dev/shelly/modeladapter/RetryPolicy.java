package dev.shelly.modeladapter;

import java.time.Duration;
import java.util.Optional;

/**
 * How often and how patiently to retry a failed completion.
 *
 * <p>Only {@linkplain ModelException#retryable() retryable} failures are retried: rate limits,
 * overload, server errors (HTTP 408, 429, 500, 502, 503, 504, 529) and network failures; never
 * bad requests, authentication, permission, not-found, quota or spend-limit failures. The delay
 * before retry {@code n} (from 1) is {@code min(initialDelay * multiplier^(n-1), maxDelay)},
 * shortened by a random share of up to {@code jitter}. When the provider said how long to wait
 * ({@code retry-after}), that delay is used as it is, unless it is longer than
 * {@code maxRetryAfter}: then the failure is reported at once instead of waiting.
 *
 * @param maxAttempts attempts in all, the first included; 1 means no retry
 * @param initialDelay the delay before the first retry
 * @param maxDelay the longest computed delay
 * @param multiplier how much each delay grows, at least 1
 * @param jitter the largest share, from 0 to 1, taken off a computed delay at random
 * @param maxRetryAfter the longest provider-requested wait that is honoured
 */
public record RetryPolicy(int maxAttempts, Duration initialDelay, Duration maxDelay, double multiplier, double jitter,
        Duration maxRetryAfter) {

    /** Validates every field. */
    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("RetryPolicy.maxAttempts must be at least 1, was " + maxAttempts);
        }
        requireNotNegative(initialDelay, "initialDelay");
        requireNotNegative(maxDelay, "maxDelay");
        requireNotNegative(maxRetryAfter, "maxRetryAfter");
        if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("RetryPolicy.multiplier must be at least 1, was " + multiplier);
        }
        if (!(jitter >= 0.0 && jitter <= 1.0)) {
            throw new IllegalArgumentException("RetryPolicy.jitter must be between 0 and 1, was " + jitter);
        }
    }

    /**
     * The default: 3 attempts, delays from 0.5 s doubling up to 8 s with 25% jitter, and
     * provider-requested waits of up to 60 s honoured.
     *
     * @return the default policy
     */
    public static RetryPolicy defaults() {
        return new RetryPolicy(3, Duration.ofMillis(500), Duration.ofSeconds(8), 2.0, 0.25, Duration.ofSeconds(60));
    }

    /**
     * No retry at all: one attempt.
     *
     * @return the policy
     */
    public static RetryPolicy none() {
        return defaults().withMaxAttempts(1);
    }

    /**
     * A copy with another number of attempts.
     *
     * @param attempts attempts in all, at least 1
     * @return the new policy
     */
    public RetryPolicy withMaxAttempts(int attempts) {
        return new RetryPolicy(attempts, initialDelay, maxDelay, multiplier, jitter, maxRetryAfter);
    }

    /**
     * A copy with other backoff delays.
     *
     * @param initial the delay before the first retry
     * @param max the longest computed delay
     * @return the new policy
     */
    public RetryPolicy withDelays(Duration initial, Duration max) {
        return new RetryPolicy(maxAttempts, initial, max, multiplier, jitter, maxRetryAfter);
    }

    /**
     * A copy with another jitter.
     *
     * @param share the largest share taken off a computed delay, from 0 to 1
     * @return the new policy
     */
    public RetryPolicy withJitter(double share) {
        return new RetryPolicy(maxAttempts, initialDelay, maxDelay, multiplier, share, maxRetryAfter);
    }

    /**
     * A copy with another limit on provider-requested waits.
     *
     * @param limit the longest retry-after that is honoured
     * @return the new policy
     */
    public RetryPolicy withMaxRetryAfter(Duration limit) {
        return new RetryPolicy(maxAttempts, initialDelay, maxDelay, multiplier, jitter, limit);
    }

    /**
     * The computed backoff before a retry, ignoring any retry-after.
     *
     * @param failedAttempt the number of the attempt that failed, from 1
     * @param random a number in [0, 1) that picks the jitter
     * @return the delay
     */
    public Duration backoff(int failedAttempt, double random) {
        double millis = initialDelay.toMillis() * Math.pow(multiplier, Math.max(0, failedAttempt - 1));
        millis = Math.min(millis, maxDelay.toMillis());
        millis = millis * (1.0 - jitter * random);
        return Duration.ofMillis(Math.round(millis));
    }

    /**
     * The delay before retrying a failure, or empty when it must not be retried by this
     * policy: the failure is not retryable, the attempts are used up, or the provider asked for
     * a wait longer than {@code maxRetryAfter}.
     *
     * @param failure the failure
     * @param failedAttempt the number of the attempt that failed, from 1
     * @param random a number in [0, 1) that picks the jitter
     * @return the delay, or empty
     */
    public Optional<Duration> delayBeforeRetry(ModelException failure, int failedAttempt, double random) {
        if (!failure.retryable() || failedAttempt >= maxAttempts) {
            return Optional.empty();
        }
        Optional<Duration> asked = failure.retryAfter();
        if (asked.isPresent()) {
            Duration wait = asked.get().isNegative() ? Duration.ZERO : asked.get();
            return wait.compareTo(maxRetryAfter) > 0 ? Optional.empty() : Optional.of(wait);
        }
        return Optional.of(backoff(failedAttempt, random));
    }

    private static void requireNotNegative(Duration d, String field) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException("RetryPolicy." + field + " must be zero or positive, was " + d);
        }
    }
}
