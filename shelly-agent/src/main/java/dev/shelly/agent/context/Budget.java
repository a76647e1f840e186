package dev.shelly.agent.context;

import java.time.Duration;

/**
 * {@code budget}: token and time budgets for a run, a warning to the model before either is
 * spent (see {@link ContextStrategy#budget(long, Duration, double)}).
 *
 * @param maxTokens the most tokens the run may use; 0 for no token budget
 * @param maxTime the longest the run may take, or null for no time budget
 * @param warnAt the share of a budget at which the model is warned; above 0, below 1
 */
record Budget(long maxTokens, Duration maxTime, double warnAt) implements KeepsMessages {
    /** The strategy's name. */
    static final String NAME = "budget";
    /** The name of the token budget in events and exceptions. */
    static final String TOKENS = "tokens";
    /** The name of the time budget in events and exceptions. */
    static final String TIME = "time";
    /** The share at which the model is warned unless set. */
    static final double DEFAULT_WARN_AT = 0.8;

    /** Validates the limits. */
    public Budget {
        if (maxTokens < 0) {
            throw new IllegalArgumentException("Budget max_tokens must not be negative, was " + maxTokens);
        }
        if (maxTime != null && (maxTime.isNegative() || maxTime.isZero())) {
            throw new IllegalArgumentException("Budget max_time must be positive, was " + maxTime);
        }
        if (maxTokens == 0 && maxTime == null) {
            throw new IllegalArgumentException("Budget needs max_tokens or max_time");
        }
        if (!(warnAt > 0 && warnAt < 1)) {
            throw new IllegalArgumentException("Budget warn_at must be above 0 and below 1, was " + warnAt);
        }
    }

    /**
     * The note that warns the model.
     *
     * @param budget {@code tokens} or {@code time}
     * @param used how much is used
     * @param limit the limit
     * @return the note
     */
    static String note(String budget, long used, long limit) {
        String amount = budget.equals(TIME) ? (used / 1000) + " s of its " + (limit / 1000) + " s"
                : used + " of its " + limit + " tokens";
        return "Budget: this run has used " + amount + ". Finish now: wrap up and give your final answer in your next "
                + "reply.";
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void apply(ContextView view) {
        boolean[] warned = view.state(this, () -> new boolean[2]);
        if (maxTokens > 0) {
            check(view, TOKENS, view.usage().totalTokens(), maxTokens, warned, 0);
        }
        if (maxTime != null) {
            check(view, TIME, view.elapsed().toMillis(), maxTime.toMillis(), warned, 1);
        }
    }

    private void check(ContextView view, String budget, long used, long limit, boolean[] warned, int slot) {
        if (used >= limit) {
            throw new BudgetExceededException(view.agent(), budget, used, limit);
        }
        if (!warned[slot] && used >= warnAt * limit) {
            warned[slot] = true;
            view.budgetWarning(budget, used, limit, note(budget, used, limit), NAME);
        }
    }
}
