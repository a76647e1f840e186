package dev.shelly.modeladapter;

import java.time.Duration;

/**
 * A failed attempt that will be tried again.
 *
 * @param attempt the number of the attempt that failed, from 1
 * @param maxAttempts how many attempts the policy allows in all
 * @param failure why the attempt failed
 * @param delay how long the retry waits before the next attempt
 * @param fromRetryAfter whether the delay is the one the provider asked for (retry-after)
 */
public record RetryEvent(int attempt, int maxAttempts, ModelException failure, Duration delay, boolean fromRetryAfter) {}
