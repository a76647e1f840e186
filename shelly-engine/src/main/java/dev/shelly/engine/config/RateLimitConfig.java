package dev.shelly.engine.config;

import dev.shelly.modeladapter.spi.InvalidSettingException;

/**
 * A client-side rate limit of a provider: the {@code rate_limit:} section of a provider. Shared
 * by every engine instance through Redis when the configuration has a {@code redis:} section.
 *
 * @param requestsPerMinute requests per minute, at least 1
 * @param tokensPerMinute tokens per minute, at least 1, or null for no token limit
 */
public record RateLimitConfig(Integer requestsPerMinute, Long tokensPerMinute) {

    /** Validates the values. */
    public RateLimitConfig {
        if (requestsPerMinute == null) {
            throw new InvalidSettingException("requests_per_minute", "missing required field");
        }
        Fields.positive(requestsPerMinute, "requests_per_minute");
        Fields.positive(tokensPerMinute, "tokens_per_minute");
    }
}
