package dev.shelly.agent;

/**
 * An agent used up its iterations (model calls) without giving a final answer. Every tool call
 * it made was answered before this was thrown.
 */
public final class MaxIterationsException extends AgentException {
    private static final long serialVersionUID = 1L;

    /** The number of model turns the agent was allowed. */
    private final int limit;

    /**
     * Creates the exception.
     *
     * @param agent the agent's name
     * @param limit its iteration limit
     */
    public MaxIterationsException(String agent, int limit) {
        super(agent, "agent '" + agent + "' reached its limit of " + limit + " iteration" + (limit == 1 ? "" : "s")
                + " without a final answer", null);
        this.limit = limit;
    }

    /**
     * The iteration limit that was reached.
     *
     * @return the limit
     */
    public int limit() {
        return limit;
    }
}
