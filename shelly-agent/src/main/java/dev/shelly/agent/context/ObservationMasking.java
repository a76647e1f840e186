package dev.shelly.agent.context;

import dev.shelly.chats.Text;
import dev.shelly.chats.ToolResult;
import java.util.List;

/**
 * Masks old observations in the model's view: every tool message but the newest
 * {@code keepRecent} has each result replaced by a short placeholder, while the model's own
 * reasoning (its text and tool calls) stays. The chat keeps the whole result.
 *
 * <p>Config: {@code mask_observations: {keep_recent: 3, placeholder: "..."}}.
 *
 * @param keepRecent how many of the newest tool messages stay whole; at least 0
 * @param placeholder what the model reads instead of an old result
 */
public record ObservationMasking(int keepRecent, String placeholder) implements ContextStrategy {
    /** The strategy's name. */
    public static final String NAME = "mask_observations";
    /** What the model reads instead of an old result unless set. */
    public static final String DEFAULT_PLACEHOLDER = "[old tool output omitted to save context; call the tool again if you need it]";

    /** Validates the count and the placeholder. */
    public ObservationMasking {
        if (keepRecent < 0) {
            throw new IllegalArgumentException("ObservationMasking keep_recent must not be negative, was " + keepRecent);
        }
        Cuts.requireText(placeholder, "ObservationMasking", "placeholder");
    }

    /**
     * Masking with the {@linkplain #DEFAULT_PLACEHOLDER default placeholder}.
     *
     * @param keepRecent how many of the newest tool messages stay whole
     * @return the strategy
     */
    public static ObservationMasking keeping(int keepRecent) {
        return new ObservationMasking(keepRecent, DEFAULT_PLACEHOLDER);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void apply(ContextView view) {
        ToolResults.rewriteOld(view, this, keepRecent,
                r -> r.content().size() == 1 && r.text().equals(placeholder) ? null
                        : new ToolResult(r.toolCallId(), List.of(new Text(placeholder)), r.isError()));
    }
}
