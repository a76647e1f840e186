package dev.shelly.agent.context;

import dev.shelly.chats.ToolResult;

/**
 * {@code trim_tool_results}: cuts old tool results to a length in the model's view (see
 * {@link ContextStrategy#trimToolResults(int, int)}).
 *
 * @param keepRecent how many of the newest tool messages stay whole; at least 0
 * @param maxChars how many characters an old result keeps; at least 1
 */
record ToolResultTrimming(int keepRecent, int maxChars) implements ContextStrategy {
    /** The strategy's name. */
    static final String NAME = "trim_tool_results";

    /** Validates the counts. */
    public ToolResultTrimming {
        if (keepRecent < 0) {
            throw new IllegalArgumentException("ToolResultTrimming keep_recent must not be negative, was " + keepRecent);
        }
        if (maxChars < 1) {
            throw new IllegalArgumentException("ToolResultTrimming max_chars must be at least 1, was " + maxChars);
        }
    }

    /**
     * The text an old result is cut to: its first {@code maxChars} characters and a line saying
     * how many more there were.
     *
     * @param text the result's text
     * @param maxChars the characters kept
     * @return the cut text
     */
    static String cut(String text, int maxChars) {
        return text.substring(0, maxChars) + "\n[" + (text.length() - maxChars)
                + " more characters of this old tool result were cut to save context]";
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void apply(ContextView view) {
        // After a context overflow the newest results, the likeliest cause, are cut too.
        ToolResults.rewriteOld(view, this, view.overflowed() ? 0 : keepRecent, this::trim);
    }

    private ToolResult trim(ToolResult r) {
        String text = r.text();
        if (text.length() <= maxChars) {
            return null;
        }
        return ToolResults.withText(r, cut(text, maxChars));
    }
}
