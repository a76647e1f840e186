package dev.shelly.tools;

/**
 * Who is calling a tool, and in which run: the agent's name, the agent that delegated to it, how
 * deep in a delegation tree it runs, the run's identity, and the embedding application's own
 * values. Handlers receive it explicitly with every call.
 *
 * @param agent the calling agent's name
 * @param parent the name of the agent that delegated to the caller, or null for a top-level agent
 * @param depth the delegation depth: 0 for a top-level agent, 1 for its children, and so on
 * @param runId the id of the calling run, or null outside a run
 * @param parentRunId the id of the run that started the calling run (a delegating agent's, or a
 *     team's member's caller), or null for a top-level run
 * @param sessionId the id of the session the run belongs to, or null when there is none
 * @param values the application's values for the run; {@link RunValues#EMPTY} when none
 * @param idempotencyKey a key for this one call, the same in its first attempt and in any attempt
 *     after a session is resumed from its journal, and different for every other call: pass it on
 *     to an API that takes idempotency keys (payments, tickets) so that a repeated call does
 *     nothing twice; null outside a run
 */
public record ToolContext(String agent, String parent, int depth, String runId, String parentRunId,
        String sessionId, RunValues values, String idempotencyKey) {

    /** Validates the fields; only the parent and the three ids may be null. */
    public ToolContext {
        if (agent == null || agent.isBlank()) {
            throw new IllegalArgumentException("ToolContext.agent must not be null or blank");
        }
        if (parent != null && parent.isBlank()) {
            throw new IllegalArgumentException("ToolContext.parent must not be blank");
        }
        if (depth < 0) {
            throw new IllegalArgumentException("ToolContext.depth must not be negative, was " + depth);
        }
        if (values == null) {
            throw new IllegalArgumentException("ToolContext.values must not be null; use RunValues.EMPTY");
        }
    }

    /**
     * A context for a run, before a call gives it its idempotency key.
     *
     * @param agent the calling agent's name
     * @param parent the name of the agent that delegated to the caller, or null
     * @param depth the delegation depth
     * @param runId the id of the calling run, or null
     * @param parentRunId the id of the run that started the calling run, or null
     * @param sessionId the id of the session, or null
     * @param values the application's values for the run
     */
    public ToolContext(String agent, String parent, int depth, String runId, String parentRunId, String sessionId,
            RunValues values) {
        this(agent, parent, depth, runId, parentRunId, sessionId, values, null);
    }

    /**
     * This context for one call: the same, with the call's idempotency key.
     *
     * @param key the key, stable across attempts of the same call
     * @return the context for the call
     * @throws IllegalArgumentException when the key is null or blank
     */
    public ToolContext forCall(String key) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("ToolContext.forCall key must not be null or blank");
        }
        return new ToolContext(agent, parent, depth, runId, parentRunId, sessionId, values, key);
    }

    /**
     * A context outside any run: no ids, no values.
     *
     * @param agent the calling agent's name
     * @param parent the name of the agent that delegated to the caller, or null
     * @param depth the delegation depth
     */
    public ToolContext(String agent, String parent, int depth) {
        this(agent, parent, depth, null, null, null, RunValues.EMPTY);
    }

    /**
     * The context of a top-level caller outside any run.
     *
     * @param agent the caller's name
     * @return a context at depth 0 without a parent
     */
    public static ToolContext of(String agent) {
        return new ToolContext(agent, null, 0);
    }
}
