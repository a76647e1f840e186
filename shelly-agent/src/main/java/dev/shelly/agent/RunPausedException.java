package dev.shelly.agent;

import dev.shelly.chats.ToolCall;
import java.util.List;
import java.util.Map;

/**
 * A {@link ToolCallHook} paused the run before a turn's tool calls ran. The reply that made the
 * calls is in the chat; nothing answers them yet. The next run on the same chat executes them
 * first (asking the hooks again), then goes on as usual.
 */
public final class RunPausedException extends AgentException {
    private static final long serialVersionUID = 1L;

    /** The id of the paused run, to resume it by. */
    private final String runId;
    private final transient List<ToolCall> pending;
    private final transient Map<String, String> reasons;

    /**
     * Creates the exception.
     *
     * @param agent the agent's name
     * @param runId the paused run's id
     * @param pending every call of the paused turn, in order
     * @param reasons why, by call id, for the calls a hook paused
     */
    public RunPausedException(String agent, String runId, List<ToolCall> pending, Map<String, String> reasons) {
        super(agent, "agent '" + agent + "' paused before its tool calls ran: " + String.join("; ", reasons.values()),
                null);
        this.runId = runId;
        this.pending = List.copyOf(pending);
        this.reasons = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(reasons));
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
     * Every call of the paused turn, in order; none has run.
     *
     * @return the calls
     */
    public List<ToolCall> pending() {
        return pending;
    }

    /**
     * Why the run paused, by call id, for the calls a hook paused.
     *
     * @return the reasons
     */
    public Map<String, String> reasons() {
        return reasons;
    }
}
