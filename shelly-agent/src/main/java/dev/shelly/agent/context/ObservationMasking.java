package dev.shelly.agent.context;

import dev.shelly.chats.Text;
import dev.shelly.chats.ToolResult;
import java.util.List;

/**
 * {@code mask_observations}: replaces old tool results in the model's view by a placeholder (see
 * {@link ContextStrategy#maskObservations(int, String)}).
 *
 * @param keepRecent how many of the newest tool messages stay whole; at least 0
 * @param placeholder what the model reads instead of an old result
 */
record ObservationMasking(int keepRecent, String placeholder) implements ContextStrategy {
    /** The strategy's name. */
    static final String NAME = "mask_observations";
    /** What the model reads instead of an old result unless set. */
    static final String DEFAULT_PLACEHOLDER = "[old tool output omitted to save context; call the tool again if you need it]";

    /** Validates the count and the placeholder. */
    public ObservationMasking {
        if (keepRecent < 0) {
            throw new IllegalArgumentException("ObservationMasking keep_recent must not be negative, was " + keepRecent);
        }
        Cuts.requireText(placeholder, "ObservationMasking", "placeholder");
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
