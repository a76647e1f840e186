package dev.shelly.tools;

/**
 * Who is calling a tool: the agent's name, the agent that delegated to it, and how deep in a
 * delegation tree it runs. Handlers receive it explicitly with every call.
 *
 * @param agent the calling agent's name
 * @param parent the name of the agent that delegated to the caller, or null for a top-level agent
 * @param depth the delegation depth: 0 for a top-level agent, 1 for its children, and so on
 */
public record ToolContext(String agent, String parent, int depth) {

    /** Validates the fields. */
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
    }

    /**
     * The context of a top-level caller.
     *
     * @param agent the caller's name
     * @return a context at depth 0 without a parent
     */
    public static ToolContext of(String agent) {
        return new ToolContext(agent, null, 0);
    }
}
