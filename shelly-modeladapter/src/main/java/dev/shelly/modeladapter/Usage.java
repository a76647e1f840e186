package dev.shelly.modeladapter;

/**
 * Tokens one completion consumed.
 *
 * @param inputTokens prompt tokens that were neither read from nor written to a cache
 * @param outputTokens generated tokens, reasoning included
 * @param cacheReadTokens prompt tokens read from the provider's prompt cache
 * @param cacheWriteTokens prompt tokens written to the provider's prompt cache
 * @param reasoningTokens the part of {@code outputTokens} the model spent reasoning, where the
 *     provider reports it (for information only: it is already counted in {@code outputTokens})
 */
public record Usage(long inputTokens, long outputTokens, long cacheReadTokens, long cacheWriteTokens,
        long reasoningTokens) {

    /** No tokens at all. */
    public static final Usage ZERO = new Usage(0, 0, 0, 0, 0);

    /** Validates that no count is negative. */
    public Usage {
        if (inputTokens < 0 || outputTokens < 0 || cacheReadTokens < 0 || cacheWriteTokens < 0 || reasoningTokens < 0) {
            throw new IllegalArgumentException("Usage token counts must not be negative: " + inputTokens + ", "
                    + outputTokens + ", " + cacheReadTokens + ", " + cacheWriteTokens + ", " + reasoningTokens);
        }
    }

    /**
     * Usage without a reasoning count.
     *
     * @param inputTokens prompt tokens neither read from nor written to a cache
     * @param outputTokens generated tokens
     * @param cacheReadTokens prompt tokens read from the cache
     * @param cacheWriteTokens prompt tokens written to the cache
     */
    public Usage(long inputTokens, long outputTokens, long cacheReadTokens, long cacheWriteTokens) {
        this(inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, 0);
    }

    /**
     * Usage with only input and output tokens.
     *
     * @param inputTokens prompt tokens
     * @param outputTokens generated tokens
     * @return the usage
     */
    public static Usage of(long inputTokens, long outputTokens) {
        return new Usage(inputTokens, outputTokens, 0, 0);
    }

    /**
     * The sum of this usage and another.
     *
     * @param other the usage to add
     * @return a new usage
     */
    public Usage plus(Usage other) {
        return new Usage(inputTokens + other.inputTokens, outputTokens + other.outputTokens,
                cacheReadTokens + other.cacheReadTokens, cacheWriteTokens + other.cacheWriteTokens,
                reasoningTokens + other.reasoningTokens);
    }

    /**
     * Every prompt token, cached or not.
     *
     * @return input, cache-read and cache-write tokens together
     */
    public long totalInputTokens() {
        return inputTokens + cacheReadTokens + cacheWriteTokens;
    }

    /**
     * Every token, in and out.
     *
     * @return all counts added
     */
    public long totalTokens() {
        return totalInputTokens() + outputTokens;
    }
}
