package dev.shelly.agent.workflow;

/**
 * A team's coordinator reached its limit of rounds without the team being done: the seed's
 * {@code ErrMaxRounds}. Every reply of the rounds run so far is in the shared chat.
 */
public final class MaxRoundsException extends TeamException {
    private static final long serialVersionUID = 1L;

    /** The number of rounds the team was allowed. */
    private final int limit;

    /**
     * Creates the exception.
     *
     * @param team the team's name
     * @param limit the limit that was reached
     * @param unit what a round is for this coordinator, singular ("round", "decision")
     */
    public MaxRoundsException(String team, int limit, String unit) {
        super(team, null, "team '" + team + "' reached its limit of " + limit + " " + unit + (limit == 1 ? "" : "s")
                + " without its coordinator saying done", null);
        this.limit = limit;
    }

    /**
     * The limit that was reached.
     *
     * @return the limit
     */
    public int limit() {
        return limit;
    }
}
