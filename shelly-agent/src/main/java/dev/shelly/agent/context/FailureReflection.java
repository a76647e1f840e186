package dev.shelly.agent.context;

import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolResult;
import java.util.List;

/**
 * {@code failure_reflection}: a note asking the model to reflect when its last tool calls all
 * failed (see {@link ContextStrategy#failureReflection(int)}).
 *
 * @param failures how many failed results in a row ask for reflection; at least 1
 */
record FailureReflection(int failures) implements KeepsMessages {
    /** The strategy's name. */
    static final String NAME = "failure_reflection";

    /** Validates the count. */
    public FailureReflection {
        if (failures < 1) {
            throw new IllegalArgumentException("FailureReflection failures must be at least 1, was " + failures);
        }
    }

    /**
     * The note after {@code count} failures in a row.
     *
     * @param count the failures
     * @return the note
     */
    static String note(int count) {
        return "The last " + count + " tool calls failed. Stop and reflect before your next call: what do the errors "
                + "say, which assumption was wrong, and what will you do differently?";
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void apply(ContextView view) {
        int count = 0;
        scan:
        for (int i = view.size() - 1; i >= view.firstMessage(); i--) {
            Message m = view.message(i);
            if (Cuts.isNote(m, NAME) || (m.role() == Role.USER && !m.sender().equals(ContextPolicy.SENDER))) {
                break;
            }
            if (m.role() != Role.TOOL) {
                continue;
            }
            List<Part> parts = m.parts();
            for (int p = parts.size() - 1; p >= 0; p--) {
                if (parts.get(p) instanceof ToolResult r) {
                    if (!r.isError()) {
                        break scan;
                    }
                    count++;
                }
            }
        }
        if (count >= failures) {
            view.note(note(count), NAME);
        }
    }
}
