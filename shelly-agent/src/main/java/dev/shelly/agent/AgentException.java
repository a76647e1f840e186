package dev.shelly.agent;

import dev.shelly.chats.ShellyException;

/** An agent failed. The message names the agent and says what went wrong. */
public class AgentException extends ShellyException {
    private static final long serialVersionUID = 1L;

    /** The name of the agent that failed. */
    private final String agent;

    /**
     * Creates the exception.
     *
     * @param agent the failing agent's name
     * @param message what went wrong, naming the agent
     * @param cause the underlying failure, or null
     */
    public AgentException(String agent, String message, Throwable cause) {
        super(message, cause);
        this.agent = agent;
    }

    /**
     * The failing agent's name.
     *
     * @return the name
     */
    public String agent() {
        return agent;
    }
}
