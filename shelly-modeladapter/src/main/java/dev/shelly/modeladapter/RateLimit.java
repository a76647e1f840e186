package dev.shelly.modeladapter;

import dev.shelly.modeladapter.RateLimitedCompleter.RateLimiter;

/**
 * How much a {@link RateLimiter} lets through per minute.
 *
 * @param requestsPerMinute requests that may start per minute, at least 1; they are spaced
 *     evenly, one every {@code 60 s / requestsPerMinute}
 * @param tokensPerMinute tokens (input and output, as the replies' {@link Usage} reports them)
 *     that may be used per minute, or 0 for no token limit
 */
public record RateLimit(int requestsPerMinute, long tokensPerMinute) {

    /** Validates the values. */
    public RateLimit {
        if (requestsPerMinute < 1) {
            throw new IllegalArgumentException("RateLimit requestsPerMinute must be at least 1, was " + requestsPerMinute);
        }
        if (tokensPerMinute < 0) {
            throw new IllegalArgumentException("RateLimit tokensPerMinute must be 0 (no limit) or more, was "
                    + tokensPerMinute);
        }
    }

    /**
     * A limit on requests only.
     *
     * @param requestsPerMinute requests per minute, at least 1
     * @return the limit
     */
    public static RateLimit requestsPerMinute(int requestsPerMinute) {
        return new RateLimit(requestsPerMinute, 0);
    }

    /**
     * The time between two request starts.
     *
     * @return nanoseconds
     */
    public long intervalNanos() {
        return 60_000_000_000L / requestsPerMinute;
    }

    /**
     * Whether tokens are limited too.
     *
     * @return true when {@link #tokensPerMinute()} is above 0
     */
    public boolean limitsTokens() {
        return tokensPerMinute > 0;
    }
}
