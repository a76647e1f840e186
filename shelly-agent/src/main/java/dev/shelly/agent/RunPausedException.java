package dev.shelly.agent;

import dev.shelly.chats.ToolCall;
import java.util.List;
import java.util.Map;

/**
 * A turn's tool calls wait for a decision made outside the run. The reply that made the calls is
 * in the chat; nothing answers them yet. The next run on the same chat executes them first, then
 * goes on as usual.
 *
 * <p>Without {@link Approvals}, a link of the interception chain ({@link RunInterceptor#decideToolCall})
 * paused the run before any call of the turn ran, and the next run asks the links again about
 * every call. With approvals, the calls that
 * needed no decision ran and their results are kept there; {@link #decisions()} lists the calls
 * waiting, delegated children's included, with the ids to {@linkplain Approvals#answer answer}
 * them by.
 */
public final class RunPausedException extends AgentException {
    private static final long serialVersionUID = 1L;

    /** The id of the paused run, to resume it by. */
    private final String runId;
    private final transient List<ToolCall> pending;
    private final transient Map<String, String> reasons;
    private final transient List<PendingCall> decisions;

    /**
     * Creates the exception.
     *
     * @param agent the agent's name
     * @param runId the paused run's id
     * @param pending every call of the paused turn, in order
     * @param reasons why, by call id, for the calls a link paused
     */
    public RunPausedException(String agent, String runId, List<ToolCall> pending, Map<String, String> reasons) {
        super(agent, "agent '" + agent + "' paused before its tool calls ran: " + String.join("; ", reasons.values()),
                null);
        this.runId = runId;
        this.pending = List.copyOf(pending);
        this.reasons = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(reasons));
        this.decisions = List.of();
    }

    /**
     * Creates the exception for a run paused by its {@link Approvals}.
     *
     * @param agent the agent's name
     * @param runId the paused run's id
     * @param pending every call of the paused turn, in order
     * @param reasons why, by call id, for the calls that wait (a {@code delegate} call: for its child)
     * @param decisions the calls waiting for a decision in the whole tree
     */
    public RunPausedException(String agent, String runId, List<ToolCall> pending, Map<String, String> reasons,
            List<PendingCall> decisions) {
        super(agent, "agent '" + agent + "' paused for a decision: " + String.join("; ", reasons.values()), null);
        this.runId = runId;
        this.pending = List.copyOf(pending);
        this.reasons = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(reasons));
        this.decisions = List.copyOf(decisions);
    }

    /**
     * The calls waiting for a decision, delegated children's included; empty when a link paused
     * the run without {@link Approvals}.
     *
     * @return the calls
     */
    public List<PendingCall> decisions() {
        return decisions;
    }

    /**
     * The paused run's id.
     *
     * @return the id
     */
    public String runId() {
        return runId;
    }

    /**
     * Every call of the paused turn, in order (with approvals, those that needed no decision
     * ran).
     *
     * @return the calls
     */
    public List<ToolCall> pending() {
        return pending;
    }

    /**
     * Why the run paused, by call id, for the calls a link paused.
     *
     * @return the reasons
     */
    public Map<String, String> reasons() {
        return reasons;
    }
}
