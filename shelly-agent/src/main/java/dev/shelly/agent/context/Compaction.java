package dev.shelly.agent.context;

import dev.shelly.modeladapter.Completer;
import java.util.OptionalInt;

/**
 * When the request passes a share of the model's window, summarises the older part of the
 * conversation with a model call and continues from the system prompt, the summary and the
 * recent turns. The summary covers the previous one too, so nothing summarised before is
 * forgotten. The cut never parts a tool call from its result.
 *
 * <p>Needs a window ({@link ContextPolicy.Builder#window}, the table, or the one a provider names
 * when it refuses a request as too long); until one is known it does nothing. After such a
 * refusal it compacts whatever the share ({@link ContextView#overflowed()}). Config:
 * {@code compaction: {threshold: 0.8, keep_recent: 0.3}}.
 *
 * @param threshold the share of the window past which the view is compacted; above 0, at most 1
 * @param keepRecent the share of the window the recent turns may keep; above 0, below
 *     {@code threshold}
 * @param completer the model that summarises, or null for the policy's summariser
 * @param instructions the summariser's system prompt
 */
public record Compaction(double threshold, double keepRecent, Completer completer, String instructions)
        implements ContextStrategy {
    /** The strategy's name. */
    public static final String NAME = "compaction";
    /** The share of the window past which the view is compacted unless set. */
    public static final double DEFAULT_THRESHOLD = 0.8;
    /** The share of the window the recent turns keep unless set. */
    public static final double DEFAULT_KEEP_RECENT = 0.3;
    /** What the summariser is told unless set. */
    public static final String DEFAULT_INSTRUCTIONS = "You compress conversations for an agent that will continue "
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

    /**
     * Compaction at a share of the window, keeping {@value #DEFAULT_KEEP_RECENT} of it (or
     * less, when the threshold is lower) for the recent turns.
     *
     * @param threshold the share; above 0, at most 1
     * @return the strategy
     */
    public static Compaction atFraction(double threshold) {
        return new Compaction(threshold, Math.min(DEFAULT_KEEP_RECENT, threshold / 2), null, DEFAULT_INSTRUCTIONS);
    }

    /**
     * Compaction at {@value #DEFAULT_THRESHOLD} of the window, keeping
     * {@value #DEFAULT_KEEP_RECENT}.
     *
     * @return the strategy
     */
    public static Compaction defaults() {
        return new Compaction(DEFAULT_THRESHOLD, DEFAULT_KEEP_RECENT, null, DEFAULT_INSTRUCTIONS);
    }

    /**
     * This strategy with another summarising model.
     *
     * @param value the model
     * @return a new strategy
     */
    public Compaction withCompleter(Completer value) {
        return new Compaction(threshold, keepRecent, value, instructions);
    }

    /**
     * This strategy with another share kept for the recent turns.
     *
     * @param value the share
     * @return a new strategy
     */
    public Compaction withKeepRecent(double value) {
        return new Compaction(threshold, value, completer, instructions);
    }

    /**
     * This strategy with other instructions for the summariser.
     *
     * @param value the instructions
     * @return a new strategy
     */
    public Compaction withInstructions(String value) {
        return new Compaction(threshold, keepRecent, completer, value);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean replacesMessages() {
        return false;
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
