package dev.shelly.agent.workflow;

import dev.shelly.agent.AgentException;
import java.util.Optional;

/**
 * A team's run failed: a member failed, or the coordinator did. The message names the team and,
 * when a member failed, the member; the member's own exception is the cause.
 */
public class TeamException extends AgentException {
    private static final long serialVersionUID = 1L;

    /** The member that failed, or null when the coordinator did. */
    private final String member;

    /**
     * Creates the exception.
     *
     * @param team the team's name
     * @param member the failing member's name, or null when the coordinator failed
     * @param message what went wrong, naming the team (and the member)
     * @param cause the underlying failure, or null
     */
    public TeamException(String team, String member, String message, Throwable cause) {
        super(team, message, cause);
        this.member = member;
    }

    /**
     * The team's name.
     *
     * @return the name
     */
    public String team() {
        return agent();
    }

    /**
     * The member that failed.
     *
     * @return its name, or empty when the coordinator failed
     */
    public Optional<String> member() {
        return Optional.ofNullable(member);
    }
}
