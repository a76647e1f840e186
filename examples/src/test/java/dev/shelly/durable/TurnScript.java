package dev.shelly.durable;

import java.util.List;

/**
 * What the emulated model answers, by agent, turn and step, the same in every process: the
 * lead's first turn ({@code hello <session>}) is one answer; its second ({@code run <session>})
 * takes 20 steps of tool calls — two non-idempotent tools ({@code charge}, {@code ship}, the
 * latter asked about by the approval policy), an idempotent one ({@code lookup}) and one
 * delegation to the helper, whose non-idempotent {@code note} is its only call — and ends with
 * {@code done <session>}.
 */
final class TurnScript {
    /** The steps of the lead's long turn. */
    static final int STEPS = 20;
    /** The step at which the lead delegates. */
    static final int DELEGATE_STEP = 8;
    /** The step whose {@code ship} call waits for a decision. */
    static final int SHIP_STEP = 11;

    /** One tool call the model asks for. */
    record Call(String tool, String arguments) {}

    /** One reply: tool calls, or a final text. */
    record Step(List<Call> calls, String text) {
        static Step calls(Call... calls) {
            return new Step(List.of(calls), null);
        }

        static Step answer(String text) {
            return new Step(List.of(), text);
        }
    }

    private TurnScript() {}

    /**
     * The reply of one step.
     *
     * @param agent {@code lead} or {@code helper}
     * @param turn the agent's turn: the count of user messages (not tool results) so far
     * @param step the count of assistant messages since the last user message
     * @param session the session's token, as the user messages carry it
     * @return the reply, or null when the script has no such step
     */
    static Step step(String agent, int turn, int step, String session) {
        if (agent.equals("helper")) {
            return turn != 1 ? null : switch (step) {
                case 0 -> Step.calls(new Call("note", "{\"text\":\"n1\"}"));
                case 1 -> Step.answer("noted");
                default -> null;
            };
        }
        if (turn == 1) {
            return step == 0 ? Step.answer("hi " + session) : null;
        }
        if (turn != 2) {
            return null;
        }
        return switch (step) {
            case 0 -> Step.calls(lookup("a"));
            case 1 -> Step.calls(charge(1));
            case 2 -> Step.calls(lookup("b"), charge(2));
            case 3 -> Step.calls(charge(3));
            case 4 -> Step.calls(lookup("c"));
            case 5 -> Step.calls(charge(5));
            case 6 -> Step.calls(charge(6), charge(7));
            case 7 -> Step.calls(lookup("d"));
            case DELEGATE_STEP -> Step.calls(new Call("delegate",
                    "{\"tasks\":[{\"agent\":\"helper\",\"task\":\"note for " + session + "\"}]}"));
            case 9 -> Step.calls(charge(9));
            case 10 -> Step.calls(lookup("e"));
            case SHIP_STEP -> Step.calls(new Call("ship", "{\"parcel\":11}"), charge(12));
            case 12 -> Step.calls(charge(13));
            case 13 -> Step.calls(lookup("f"));
            case 14 -> Step.calls(charge(14));
            case 15 -> Step.calls(charge(15));
            case 16 -> Step.calls(lookup("g"));
            case 17 -> Step.calls(charge(17));
            case 18 -> Step.calls(charge(18));
            case 19 -> Step.answer("done " + session);
            default -> null;
        };
    }

    private static Call charge(int amount) {
        return new Call("charge", "{\"amount\":" + amount + "}");
    }

    private static Call lookup(String q) {
        return new Call("lookup", "{\"q\":\"" + q + "\"}");
    }

    /**
     * The id of a scripted tool call, unique in a session: the format's prefix, the agent's
     * initial, the turn, the step and the call's index.
     */
    static String callId(String format, String agent, int turn, int step, int index) {
        return (format.equals("anthropic") ? "toolu_" : "call_") + Character.toUpperCase(agent.charAt(0)) + turn + "_"
                + step + "_" + index;
    }

    /** The steps the lead and the helper answer in a whole session: the request keys an uninterrupted run sends. */
    static List<String> allKeys() {
        List<String> keys = new java.util.ArrayList<>();
        keys.add(key("lead", 1, 0));
        for (int s = 0; s < STEPS; s++) {
            keys.add(key("lead", 2, s));
        }
        keys.add(key("helper", 1, 0));
        keys.add(key("helper", 1, 1));
        return keys;
    }

    /** The key of one step: {@code agent/turn/step}. */
    static String key(String agent, int turn, int step) {
        return agent + "/" + turn + "/" + step;
    }
}
