package dev.shelly.engine.config;

import dev.shelly.modeladapter.CircuitBreaker;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import java.time.Duration;

/**
 * When a provider is skipped by the fallback chains that name it: the {@code circuit_breaker:}
 * section of a provider.
 *
 * @param failures consecutive failures (of the kinds another provider could fix) after which the
 *     provider is skipped; null for 3
 * @param coolDown how long it is skipped before one probe request decides; null for 30 s
 */
public record CircuitBreakerConfig(Integer failures, Duration coolDown) {

    /** Three failures, thirty seconds. */
    public static final CircuitBreakerConfig DEFAULT = new CircuitBreakerConfig(null, null);

    /** Fills in the defaults and validates the values. */
    public CircuitBreakerConfig {
        failures = Fields.positive(failures == null ? CircuitBreaker.DEFAULT_FAILURE_THRESHOLD : failures, "failures");
        coolDown = coolDown == null ? CircuitBreaker.DEFAULT_COOL_DOWN : coolDown;
        if (coolDown.isNegative() || coolDown.isZero()) {
            throw new InvalidSettingException("cool_down", "must be positive, was " + coolDown);
        }
    }

    /**
     * A breaker with these settings.
     *
     * @return a new breaker
     */
    public CircuitBreaker breaker() {
        return CircuitBreaker.of(failures, coolDown);
    }
}
