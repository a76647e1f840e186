package dev.shelly.agent.workflow;

import dev.shelly.agent.AgentException;
import java.util.List;

/**
 * A hand-off group's run reached its limit of transfers, and an agent asked for one more. The
 * refused {@code transfer_to_*} call is answered in the shared chat with an error result saying
 * so; the message names the group, the limit, the path the conversation took, and the refused
 * transfer.
 */
public final class MaxHandoffsException extends AgentException {
    private static final long serialVersionUID = 1L;

    /** The number of hand-offs the workflow was allowed. */
    private final int limit;
    /** The agents the conversation was handed through, in order. */
    private final List<String> path;

    /**
     * Creates the exception.
     *
     * @param group the hand-off group's name
     * @param limit its limit of transfers per run
     * @param path the agents that had control in this run, in order
     * @param from the agent that asked for one more transfer
     * @param to the agent it asked to transfer to
     */
    public MaxHandoffsException(String group, int limit, List<String> path, String from, String to) {
        super(group, "hand-off group '" + group + "' reached its limit of " + limit + " handoff" + (limit == 1 ? "" : "s")
                + " (" + String.join(" -> ", path) + "); '" + from + "' asked for another transfer, to '" + to + "'", null);
        this.limit = limit;
        this.path = List.copyOf(path);
    }

    /**
     * The limit that was reached.
     *
     * @return the limit of transfers per run
     */
    public int limit() {
        return limit;
    }

    /**
     * The agents that had control in the run, in order, the first being where the run started.
     *
     * @return the path
     */
    public List<String> path() {
        return path;
    }
}
