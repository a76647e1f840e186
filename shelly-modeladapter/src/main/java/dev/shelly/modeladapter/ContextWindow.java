package dev.shelly.modeladapter;

/**
 * How many tokens a model can take in one request.
 *
 * @param tokens the most tokens one request may hold, prompt and reply together; at least 1
 * @param maxOutputTokens the most tokens the reply may hold; 0 when the provider does not say
 */
public record ContextWindow(int tokens, int maxOutputTokens) {

    /** Validates that the window holds at least one token and the reply limit fits in it. */
    public ContextWindow {
        if (tokens < 1) {
            throw new IllegalArgumentException("ContextWindow.tokens must be at least 1, was " + tokens);
        }
        if (maxOutputTokens < 0 || maxOutputTokens > tokens) {
            throw new IllegalArgumentException("ContextWindow.maxOutputTokens must be between 0 and tokens (" + tokens
                    + "), was " + maxOutputTokens);
        }
    }

    /**
     * A window of {@code tokens} without a published reply limit.
     *
     * @param tokens the window; at least 1
     * @return the window
     */
    public static ContextWindow of(int tokens) {
        return new ContextWindow(tokens, 0);
    }
}
