package dev.shelly.agent.context;

import dev.shelly.modeladapter.Completer;
import java.util.OptionalInt;

/**
 * {@code compaction}: summarises the older part of the conversation once the request passes a
 * share of the window (see {@link ContextStrategy#compaction(double, double, Completer, String)}).
 *
 * @param threshold the share of the window past which the view is compacted; above 0, at most 1
 * @param keepRecent the share of the window the recent turns may keep; above 0, below
 *     {@code threshold}
 * @param completer the model that summarises, or null for the policy's summariser
 * @param instructions the summariser's system prompt
 */
record Compaction(double threshold, double keepRecent, Completer completer, String instructions)
        implements KeepsMessages {
    /** The strategy's name. */
    static final String NAME = "compaction";
    /** The share of the window past which the view is compacted unless set. */
    static final double DEFAULT_THRESHOLD = 0.8;
    /** The share of the window the recent turns keep unless set. */
    static final double DEFAULT_KEEP_RECENT = 0.3;
    /** What the summariser is told unless set. */
    static final String DEFAULT_INSTRUCTIONS = "You compress conversations for an agent that will continue "
            + "the work with your summary in place of the messages. Keep the task and every request of the user, "
            + "decisions made, facts and figures learned, names of files, identifiers and tools used, results still "
            + "needed, errors met and what is left to do. Write plain prose and short lists, no preamble.";

    /** Validates the shares and the instructions. */
    public Compaction {
        if (!(threshold > 0 && threshold <= 1)) {
            throw new IllegalArgumentException("Compaction threshold must be above 0 and at most 1, was " + threshold);
        }
        if (!(keepRecent > 0 && keepRecent < threshold)) {
            throw new IllegalArgumentException("Compaction keep_recent must be above 0 and below threshold (" + threshold
                    + "), was " + keepRecent);
        }
        Cuts.requireText(instructions, "Compaction", "instructions");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void apply(ContextView view) {
        OptionalInt window = view.window();
        if (window.isEmpty() || (!view.overflowed() && view.tokens() <= threshold * window.getAsInt())) {
            return;
        }
        int cut = Cuts.keeping(view, (long) (keepRecent * window.getAsInt()));
        if (cut < 0) {
            return;
        }
        String summary = view.summarize(view.messages().subList(view.firstMessage(), cut), completer, instructions);
        view.compact(cut, summary, NAME);
    }

    @Override
    public String toString() {
        return "Compaction[threshold=" + threshold + ", keepRecent=" + keepRecent + "]";
    }
}
