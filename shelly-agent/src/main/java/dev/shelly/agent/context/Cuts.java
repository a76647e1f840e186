package dev.shelly.agent.context;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import java.util.HashMap;
import java.util.Map;

/** Where to cut a view, and what the strategies share to read one. */
final class Cuts {
    private Cuts() {}

    /**
     * The cut that keeps about {@code keepTokens} of the newest conversation: the first place
     * the view may be cut at or after the point where the newest messages reach
     * {@code keepTokens}; failing that the last place before it.
     *
     * @return the index to resume at, or -1 when the view cannot be cut
     */
    static int keeping(ContextView view, long keepTokens) {
        int first = view.firstMessage();
        long kept = 0;
        int candidate = view.size();
        for (int i = view.size() - 1; i > first; i--) {
            kept += view.tokens(view.message(i));
            candidate = i;
            if (kept >= keepTokens) {
                break;
            }
        }
        for (int i = candidate; i < view.size(); i++) {
            if (view.canCutAt(i)) {
                return i;
            }
        }
        for (int i = candidate - 1; i > first; i--) {
            if (view.canCutAt(i)) {
                return i;
            }
        }
        return -1;
    }

    /** The names of the tool calls in the view, by call id. */
    static Map<String, String> callNames(ContextView view) {
        Map<String, String> names = new HashMap<>();
        for (int i = view.firstMessage(); i < view.size(); i++) {
            Message m = view.message(i);
            if (m.role() == Role.ASSISTANT) {
                for (ToolCall c : m.toolCalls()) {
                    names.put(c.id(), c.name());
                }
            }
        }
        return names;
    }

    /** Whether a message is a note of the named strategy. */
    static boolean isNote(Message m, String strategy) {
        return m.sender().equals(ContextPolicy.SENDER) && ContextPolicy.NOTE.equals(m.metadata().get(ContextPolicy.KIND))
                && strategy.equals(m.metadata().get(ContextPolicy.STRATEGY));
    }

    static String requireText(String value, String owner, String field) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(owner + " " + field + " must not be null or blank");
        }
        return value;
    }
}
