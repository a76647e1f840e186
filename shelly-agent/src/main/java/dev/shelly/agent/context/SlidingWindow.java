package dev.shelly.agent.context;

import dev.shelly.chats.Role;
import dev.shelly.modeladapter.Completer;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps the model's view to the last turns: once the conversation holds {@code keepTurns +
 * stride} turns (a turn starts at each reply of the model), the oldest {@code stride} turns or
 * more leave the view, and an incremental summary (the previous one plus what left) takes their
 * place. Without summaries the line {@value #DROPPED} does (or the summary another strategy wrote
 * before). Needs no window. When the model refused the request as too long
 * ({@link ContextView#overflowed()}), the window slides as soon as one turn is beyond the kept ones.
 *
 * <p>Config: {@code sliding_window: {keep_turns: 20, stride: 10, summarize: true}}.
 *
 * @param keepTurns how many of the newest turns stay in view; at least 1
 * @param stride how many turns may gather beyond them before the window slides; at least 1
 * @param summarize whether what leaves the view is summarised by a model call
 * @param completer the model that summarises, or null for the policy's summariser
 * @param instructions the summariser's system prompt
 */
public record SlidingWindow(int keepTurns, int stride, boolean summarize, Completer completer, String instructions)
        implements ContextStrategy {
    /** The strategy's name. */
    public static final String NAME = "sliding_window";
    /** What the model reads in place of the turns that left its view, without summaries. */
    public static final String DROPPED = "Earlier messages are out of view; the session keeps them.";

    /** Validates the counts and the instructions. */
    public SlidingWindow {
        if (keepTurns < 1) {
            throw new IllegalArgumentException("SlidingWindow keep_turns must be at least 1, was " + keepTurns);
        }
        if (stride < 1) {
            throw new IllegalArgumentException("SlidingWindow stride must be at least 1, was " + stride);
        }
        Cuts.requireText(instructions, "SlidingWindow", "instructions");
    }

    /**
     * A window of {@code keepTurns} turns that slides by half of that, with summaries.
     *
     * @param keepTurns the turns kept; at least 1
     * @return the strategy
     */
    public static SlidingWindow ofTurns(int keepTurns) {
        return new SlidingWindow(keepTurns, Math.max(1, keepTurns / 2), true, null, Compaction.DEFAULT_INSTRUCTIONS);
    }

    /**
     * This strategy with or without summaries.
     *
     * @param value whether to summarise
     * @return a new strategy
     */
    public SlidingWindow withSummaries(boolean value) {
        return new SlidingWindow(keepTurns, stride, value, completer, instructions);
    }

    /**
     * This strategy sliding by another stride.
     *
     * @param value the stride; at least 1
     * @return a new strategy
     */
    public SlidingWindow withStride(int value) {
        return new SlidingWindow(keepTurns, value, summarize, completer, instructions);
    }

    /**
     * This strategy with another summarising model.
     *
     * @param value the model
     * @return a new strategy
     */
    public SlidingWindow withCompleter(Completer value) {
        return new SlidingWindow(keepTurns, stride, summarize, value, instructions);
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
        List<Integer> turns = new ArrayList<>();
        for (int i = view.firstMessage(); i < view.size(); i++) {
            if (view.message(i).role() == Role.ASSISTANT && view.canCutAt(i)) {
                turns.add(i);
            }
        }
        if (turns.size() < keepTurns + (view.overflowed() ? 1 : stride)) {
            return;
        }
        int cut = turns.get(turns.size() - keepTurns);
        int first = view.firstMessage();
        String summary;
        if (summarize) {
            summary = view.summarize(view.messages().subList(first, cut), completer, instructions);
        } else {
            summary = view.summary().orElse(DROPPED);
        }
        view.compact(cut, summary, NAME);
    }
}
