package dev.shelly.engine.config;

import java.time.Duration;

/**
 * How a provider retries transient failures.
 *
 * @param maxAttempts attempts in all, the first included; 1 means no retry
 * @param initialDelay the delay before the first retry; it doubles each time, with jitter
 * @param maxDelay the longest backoff delay between attempts; a provider's retry-after is not
 *     capped by it but honoured up to 60 s, as in {@link dev.shelly.modeladapter.RetryPolicy#defaults()}
 */
public record RetryConfig(int maxAttempts, Duration initialDelay, Duration maxDelay) {

    /** Three attempts, from 1 s up to 30 s apart. */
    public static final RetryConfig DEFAULT = new RetryConfig(3, Duration.ofSeconds(1), Duration.ofSeconds(30));

    /** Validates the values. */
    public RetryConfig {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("RetryConfig.maxAttempts must be at least 1, was " + maxAttempts);
        }
        if (initialDelay == null || initialDelay.isNegative()) {
            throw new IllegalArgumentException("RetryConfig.initialDelay must not be null or negative");
        }
        if (maxDelay == null || maxDelay.compareTo(initialDelay) < 0) {
            throw new IllegalArgumentException("RetryConfig.maxDelay must not be shorter than initialDelay");
        }
    }
}
