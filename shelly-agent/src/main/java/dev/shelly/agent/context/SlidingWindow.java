package dev.shelly.agent.context;

import dev.shelly.chats.Role;
import dev.shelly.modeladapter.Completer;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code sliding_window}: keeps the model's view to the last turns, what left it summarised (see
 * {@link ContextStrategy#slidingWindow(int, int, boolean, Completer, String)}).
 *
 * @param keepTurns how many of the newest turns stay in view; at least 1
 * @param stride how many turns may gather beyond them before the window slides; at least 1
 * @param summarize whether what leaves the view is summarised by a model call
 * @param completer the model that summarises, or null for the policy's summariser
 * @param instructions the summariser's system prompt
 */
record SlidingWindow(int keepTurns, int stride, boolean summarize, Completer completer, String instructions)
        implements KeepsMessages {
    /** The strategy's name. */
    static final String NAME = "sliding_window";
    /** What the model reads in place of the turns that left its view, without summaries. */
    static final String DROPPED = "Earlier messages are out of view; the session keeps them.";

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

    @Override
    public String name() {
        return NAME;
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
