package dev.shelly.agent.context;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code loop_detection}: a note to the model when its last replies made the same tool calls with
 * the same arguments (see {@link ContextStrategy#loopDetection(int)}).
 *
 * @param repeats how many identical replies in a row make a loop; at least 2
 */
record LoopDetection(int repeats) implements KeepsMessages {
    /** The strategy's name. */
    static final String NAME = "loop_detection";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Validates the count. */
    public LoopDetection {
        if (repeats < 2) {
            throw new IllegalArgumentException("LoopDetection repeats must be at least 2, was " + repeats);
        }
    }

    /**
     * The note for a call repeated {@code times} times.
     *
     * @param call the repeated call (the first of the reply)
     * @param times how many replies in a row made it
     * @return the note
     */
    static String note(ToolCall call, int times) {
        return "You have called " + call.name() + " with the same arguments " + times + " times in a row ("
                + call.arguments() + "). Its result will not change. Use what you already have, try a different "
                + "approach, or give your final answer.";
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void apply(ContextView view) {
        List<Object> signature = null;
        ToolCall first = null;
        int count = 0;
        for (int i = view.size() - 1; i >= view.firstMessage(); i--) {
            Message m = view.message(i);
            if (Cuts.isNote(m, NAME) || (m.role() == Role.USER && !m.sender().equals(ContextPolicy.SENDER))) {
                break;
            }
            if (m.role() != Role.ASSISTANT) {
                continue;
            }
            List<ToolCall> calls = m.toolCalls();
            if (calls.isEmpty()) {
                break;
            }
            List<Object> s = signature(calls);
            if (signature == null) {
                signature = s;
                first = calls.getFirst();
            } else if (!signature.equals(s)) {
                break;
            }
            count++;
        }
        if (count >= repeats) {
            view.note(note(first, count), NAME);
        }
    }

    private static List<Object> signature(List<ToolCall> calls) {
        List<Object> s = new ArrayList<>(calls.size() * 2);
        for (ToolCall c : calls) {
            s.add(c.name());
            s.add(arguments(c.arguments()));
        }
        return s;
    }

    private static Object arguments(String json) {
        try {
            JsonNode node = JSON.readTree(json);
            return node;
        } catch (JacksonException e) {
            return json.strip();
        }
    }
}
