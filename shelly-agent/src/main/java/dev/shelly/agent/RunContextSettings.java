package dev.shelly.agent;

import dev.shelly.tools.RunValues;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The settings of a run context's builder (who and for whom, limits, approvals, links,
 * observers, run ids), kept out of {@code RunContext.java} so that its file holds the context
 * itself; the builder builds the scope there. Every setter is public on the builder, the only
 * subclass.
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
    final List<RunInterceptor> interceptors = new ArrayList<>();
    final List<RunObserver> observers = new ArrayList<>();
    RunContext.RunIds runIds;

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

    /**
     * Adds links to the interception chain of every run under the scope, after those added
     * before and before every agent's own; delegated children inherit them. See
     * {@link RunInterceptor} for the order, and for its static methods that make hooks before
     * and after model and tool calls.
     *
     * @param more the links
     * @return this builder
     */
    public B interceptors(RunInterceptor... more) {
        addAll(interceptors, more, "interceptors");
        return self();
    }

    /**
     * Adds observers that watch every run under the scope, delegated children, team members
     * and agents used as tools included; see {@link RunObserver} for the order. Those that
     * are not {@linkplain RunObserver#active() active} are left out when the scope is built.
     *
     * @param more the observers
     * @return this builder
     */
    public B observers(RunObserver... more) {
        addAll(observers, more, "observers");
        return self();
    }

    /**
     * Names the runs entered under the scope, delegated children included, instead of giving
     * each a fresh id. An id must be unique among the runs of the scope; a run the function
     * names null gets a fresh one.
     *
     * @param value the naming
     * @return this builder
     */
    public B runIds(RunContext.RunIds value) {
        if (value == null) {
            throw new IllegalArgumentException("RunContext runIds must not be null");
        }
        this.runIds = value;
        return self();
    }

    private static <T> void addAll(List<T> list, T[] more, String field) {
        if (more == null) {
            throw new IllegalArgumentException("RunContext " + field + " must not be null");
        }
        for (int i = 0; i < more.length; i++) {
            if (more[i] == null) {
                throw new IllegalArgumentException("RunContext " + field + "[" + i + "] must not be null");
            }
        }
        list.addAll(List.of(more));
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }
}
