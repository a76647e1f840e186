package dev.shelly.agent;

import java.time.Duration;

/** An agent did not finish within its {@linkplain Agent.Builder#timeout time limit}, and was stopped. */
public final class AgentTimeoutException extends AgentException {
    private static final long serialVersionUID = 1L;

    /** The time the agent was allowed. */
    private final Duration limit;

    /**
     * Creates the exception.
     *
     * @param agent the agent's name
     * @param limit the time it was allowed
     */
    public AgentTimeoutException(String agent, Duration limit) {
        super(agent, "agent '" + agent + "' did not finish within " + describe(limit) + " and was stopped", null);
        this.limit = limit;
    }

    /**
     * The time the agent was allowed.
     *
     * @return the limit
     */
    public Duration limit() {
        return limit;
    }

    static String describe(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }
}
