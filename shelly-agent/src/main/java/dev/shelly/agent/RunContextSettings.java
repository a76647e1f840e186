package dev.shelly.agent;

import dev.shelly.tools.RunValues;
import java.time.Duration;

/**
 * The plain settings of a run context's builder (who and for whom, limits, approvals), kept out
 * of {@code RunContext.java} so that its file holds the context itself; the builder adds the
 * links there. Every setter is public on the builder, the only subclass.
 *
 * @param <B> the builder
 */
abstract class RunContextSettings<B extends RunContextSettings<B>> {
    /** How long interrupted work may take to stop unless a context or an agent says otherwise. */
    static final Duration DEFAULT_CANCEL_GRACE = Duration.ofSeconds(2);

    String sessionId;
    RunValues values = RunValues.EMPTY;
    AgentListener listener = AgentListener.NONE;
    Registry registry;
    int maxDelegationDepth = Integer.MAX_VALUE;
    Duration cancelGrace = DEFAULT_CANCEL_GRACE;
    Approvals approvals;

    RunContextSettings() {}

    /**
     * The human in the loop for every run under the scope: tool policies, waiting calls and
     * their answers (see {@link Approvals}).
     *
     * @param value the approvals of the conversation
     * @return this builder
     */
    public B approvals(Approvals value) {
        if (value == null) {
            throw new IllegalArgumentException("RunContext approvals must not be null");
        }
        this.approvals = value;
        return self();
    }

    /**
     * The session the runs belong to.
     *
     * @param value the session id; not blank
     * @return this builder
     */
    public B sessionId(String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("RunContext sessionId must not be null or blank");
        }
        this.sessionId = value;
        return self();
    }

    /**
     * Sets one of the application's values.
     *
     * @param key the key
     * @param value the value
     * @param <T> the value's type
     * @return this builder
     */
    public <T> B value(RunValues.Key<T> key, T value) {
        this.values = values.with(key, value);
        return self();
    }

    /**
     * Sets every application value at once, replacing those set before.
     *
     * @param value the values
     * @return this builder
     */
    public B values(RunValues value) {
        if (value == null) {
            throw new IllegalArgumentException("RunContext values must not be null; use RunValues.EMPTY");
        }
        this.values = value;
        return self();
    }

    /**
     * The listener for the events of every run under the scope (each agent's own listener
     * hears its events first).
     *
     * @param value the listener
     * @return this builder
     */
    public B listener(AgentListener value) {
        if (value == null) {
            throw new IllegalArgumentException("RunContext listener must not be null; use AgentListener.NONE");
        }
        this.listener = value;
        return self();
    }

    /**
     * The registry for runs whose agent has none of its own.
     *
     * @param value the registry
     * @return this builder
     */
    public B registry(Registry value) {
        if (value == null) {
            throw new IllegalArgumentException("RunContext registry must not be null");
        }
        this.registry = value;
        return self();
    }

    /**
     * A delegation depth limit on top of every agent's own.
     *
     * @param value the limit; not negative
     * @return this builder
     */
    public B maxDelegationDepth(int value) {
        if (value < 0) {
            throw new IllegalArgumentException("RunContext maxDelegationDepth must not be negative, was " + value);
        }
        this.maxDelegationDepth = value;
        return self();
    }

    /**
     * How long interrupted work may take to stop, for agents and teams that set none;
     * two seconds unless set.
     *
     * @param value the grace; not negative
     * @return this builder
     */
    public B cancelGrace(Duration value) {
        if (value == null || value.isNegative()) {
            throw new IllegalArgumentException("RunContext cancelGrace must not be null or negative, was " + value);
        }
        this.cancelGrace = value;
        return self();
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }
}
