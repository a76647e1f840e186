package dev.shelly.modeladapter;

import java.time.Duration;

/**
 * Where a provider with explicit prompt caching (Anthropic) places cache breakpoints. Providers
 * that cache on their own (OpenAI, xAI) send nothing for it.
 *
 * @param prefix cache the stable prefix: the tools and the system prompt
 * @param conversation cache the conversation up to the last message, so the next call of a
 *     loop reads it back
 * @param ttl how long the entries live, or null for the provider's default
 */
public record CacheHints(boolean prefix, boolean conversation, Duration ttl) {

    /** No caching asked for. */
    public static final CacheHints OFF = new CacheHints(false, false, null);
    /** Prefix and conversation cached with the provider's default lifetime. */
    public static final CacheHints ON = new CacheHints(true, true, null);

    /** Validates the lifetime. */
    public CacheHints {
        if (ttl != null && (ttl.isNegative() || ttl.isZero())) {
            throw new IllegalArgumentException("CacheHints.ttl must be positive, was " + ttl);
        }
    }

    /**
     * Whether any breakpoint is asked for.
     *
     * @return true when the prefix or the conversation is cached
     */
    public boolean any() {
        return prefix || conversation;
    }
}
