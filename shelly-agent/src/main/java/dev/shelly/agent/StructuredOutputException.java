package dev.shelly.agent;

import java.util.List;

/**
 * An agent's answer did not fit the record type a structured run asked for, after the one
 * corrective turn (or without one, when the model refused or was cut off). The message names the
 * agent, the type and the problems, and quotes the start of the answer.
 */
public final class StructuredOutputException extends AgentException {
    private static final long serialVersionUID = 1L;
    private static final int SHOWN = 200;

    private final transient Class<?> type;
    /** The last answer's full text. */
    private final String answer;
    /** What did not fit, each problem naming the field. */
    private final List<String> problems;

    /**
     * Creates the exception, with a message such as
     * {@code agent 'a' gave no valid Decision after a corrective turn: $.done is required; its answer was '…'}.
     *
     * @param agent the agent's name
     * @param type the record type asked for
     * @param answer the last answer's text
     * @param problems what did not fit
     * @param corrected whether a corrective turn was tried
     */
    public StructuredOutputException(String agent, Class<?> type, String answer, List<String> problems,
                                     boolean corrected) {
        super(agent, "agent '" + agent + "' gave no valid " + type.getSimpleName()
                + (corrected ? " after a corrective turn: " : ": ") + String.join("; ", problems)
                + "; its answer was '" + abbreviate(answer) + "'", null);
        this.type = type;
        this.answer = answer == null ? "" : answer;
        this.problems = List.copyOf(problems);
    }

    /**
     * The record type the run asked for.
     *
     * @return the type
     */
    public Class<?> type() {
        return type;
    }

    /**
     * The last answer's full text.
     *
     * @return the answer
     */
    public String answer() {
        return answer;
    }

    /**
     * What did not fit.
     *
     * @return the problems, each naming the field
     */
    public List<String> problems() {
        return problems;
    }

    private static String abbreviate(String text) {
        if (text == null) {
            return "";
        }
        return text.length() <= SHOWN ? text : text.substring(0, SHOWN) + "…";
    }
}
