package dev.shelly.agent.context;

import dev.shelly.agent.AgentException;

/**
 * A run passed its {@linkplain ContextStrategy#budget budget}: thrown before the model call that would go over it, after the
 * model was warned. Every tool call in the chat has its result.
 */
public final class BudgetExceededException extends AgentException {
    private static final long serialVersionUID = 1L;

    /** What ran out: {@code tokens} or {@code time}. */
    private final String budget;
    /** How much was used, in the budget's unit. */
    private final long used;
    /** The limit, in the budget's unit. */
    private final long limit;

    /**
     * Makes the exception.
     *
     * @param agent the agent's name
     * @param budget what ran out: {@code tokens} or {@code time}
     * @param used how much was used (tokens, or milliseconds)
     * @param limit the limit, in the same unit
     */
    public BudgetExceededException(String agent, String budget, long used, long limit) {
        super(agent, "agent '" + agent + "' ran out of its " + budget + " budget: used " + used + " of " + limit
                + (budget.equals(Budget.TIME) ? " ms" : " tokens"), null);
        this.budget = budget;
        this.used = used;
        this.limit = limit;
    }

    /**
     * What ran out.
     *
     * @return {@code tokens} or {@code time}
     */
    public String budget() {
        return budget;
    }

    /**
     * How much was used.
     *
     * @return tokens, or milliseconds
     */
    public long used() {
        return used;
    }

    /**
     * The limit.
     *
     * @return tokens, or milliseconds
     */
    public long limit() {
        return limit;
    }
}
