package dev.shelly.agent;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * The settings of a {@link Approvals.Builder}, kept out of {@code Approvals.java} so that its file
 * holds the approvals itself. Every setter is public on {@link Approvals.Builder}, the only subclass.
 */
abstract sealed class ApprovalsSettings permits Approvals.Builder {
    final Map<String, ToolPolicy> policies = new TreeMap<>();
    ToolPolicy defaultPolicy = ToolPolicy.ALLOW_ALL;
    PermissionStore permissions;
    Duration timeout;
    Approvals.OnTimeout onTimeout = Approvals.OnTimeout.DENY;
    Clock clock = Clock.systemUTC();

    ApprovalsSettings() {}

    /**
     * The policy of one agent.
     *
     * @param agent the agent's name
     * @param policy its policy
     * @return this builder
     */
    public Approvals.Builder policy(String agent, ToolPolicy policy) {
        if (agent == null || agent.isBlank()) {
            throw new IllegalArgumentException("Approvals policy agent must not be null or blank");
        }
        if (policy == null) {
            throw new IllegalArgumentException("Approvals policy of agent '" + agent + "' must not be null");
        }
        policies.put(agent, policy);
        return self();
    }

    /**
     * The policy of agents without their own; {@link ToolPolicy#ALLOW_ALL} unless set.
     *
     * @param policy the policy
     * @return this builder
     */
    public Approvals.Builder defaultPolicy(ToolPolicy policy) {
        if (policy == null) {
            throw new IllegalArgumentException("Approvals defaultPolicy must not be null");
        }
        this.defaultPolicy = policy;
        return self();
    }

    /**
     * Where project-wide "always" decisions are kept; without one, they cannot be given.
     *
     * @param store the store
     * @return this builder
     */
    public Approvals.Builder permissions(PermissionStore store) {
        if (store == null) {
            throw new IllegalArgumentException("Approvals permissions must not be null");
        }
        this.permissions = store;
        return self();
    }

    /**
     * How long a call may wait for a decision, and what happens then.
     *
     * @param value the time; positive
     * @param action deny the call or cancel the turn
     * @return this builder
     */
    public Approvals.Builder timeout(Duration value, Approvals.OnTimeout action) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException("Approvals timeout must be positive, was " + value);
        }
        if (action == null) {
            throw new IllegalArgumentException("Approvals timeout action must not be null");
        }
        this.timeout = value;
        this.onTimeout = action;
        return self();
    }

    /**
     * The clock waiting calls are timed by; the system's UTC clock unless set.
     *
     * @param value the clock
     * @return this builder
     */
    public Approvals.Builder clock(Clock value) {
        if (value == null) {
            throw new IllegalArgumentException("Approvals clock must not be null");
        }
        this.clock = value;
        return self();
    }

    private Approvals.Builder self() {
        return (Approvals.Builder) this;
    }
}
