package dev.shelly.engine.config;

import dev.shelly.modeladapter.spi.InvalidSettingException;
import java.time.Duration;

/**
 * How a provider retries transient failures: the {@code retry:} section of a provider.
 *
 * @param maxAttempts attempts in all, the first included; 1 means no retry; null for 3
 * @param initialDelay the delay before the first retry; it doubles each time, with jitter; null for 1 s
 * @param maxDelay the longest backoff delay between attempts, null for 30 s; a provider's
 *     retry-after is not capped by it but honoured up to 60 s, as in
 *     {@link dev.shelly.modeladapter.RetryPolicy#defaults()}
 */
public record RetryConfig(Integer maxAttempts, Duration initialDelay, Duration maxDelay) {

    /** Three attempts, from 1 s up to 30 s apart. */
    public static final RetryConfig DEFAULT = new RetryConfig(3, Duration.ofSeconds(1), Duration.ofSeconds(30));

    /** Fills in the defaults and validates the values. */
    public RetryConfig {
        boolean maxGiven = maxDelay != null;
        maxAttempts = Fields.positive(maxAttempts == null ? 3 : maxAttempts, "max_attempts");
        initialDelay = initialDelay == null ? Duration.ofSeconds(1) : initialDelay;
        maxDelay = maxDelay == null ? Duration.ofSeconds(30) : maxDelay;
        if (initialDelay.isNegative()) {
            throw new InvalidSettingException("initial_delay", "must not be negative, was " + initialDelay);
        }
        if (maxDelay.compareTo(initialDelay) < 0) {
            throw new InvalidSettingException(maxGiven ? "max_delay" : "initial_delay", "max_delay (" + maxDelay
                    + ") must not be shorter than initial_delay (" + initialDelay + ")");
        }
    }
}
