package dev.shelly.engine;

import dev.shelly.agent.Approvals;
import dev.shelly.agent.PermissionStore;
import dev.shelly.agent.ToolPolicy;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.storage.internal.FilePermissionStore;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The engine's side of the human in the loop: the tool policies and {@code ask_user} choices of
 * the configuration and the builder (the builder's win), the project's permission store, and the timer that checks
 * decision timeouts. Each session gets its own {@link Approvals} from here.
 */
final class HumanInTheLoop implements AutoCloseable {
    /** The file of the project's "always" decisions, in the {@code .shelly} folder. */
    static final String PERMISSIONS_FILE = "permissions.json";

    private final Map<String, ToolPolicy> policies;
    private final ToolPolicy defaultPolicy;
    private final Set<String> askUser;
    private final Duration timeout;
    private final Approvals.OnTimeout onTimeout;
    private final PermissionStore permissions;
    private final Clock clock;
    private final ScheduledExecutorService timer;

    HumanInTheLoop(Settings code, EngineConfig config, PermissionStore permissions, ShellyDir dir, Clock clock,
            Map<String, java.util.function.UnaryOperator<ToolPolicy>> coding) {
        Map<String, ToolPolicy> p = new LinkedHashMap<>();
        Set<String> ask = new LinkedHashSet<>();
        for (AgentConfig a : config.agents()) {
            if (a.approval() != null) {
                p.put(a.name(), a.approval().policy());
                if (a.approval().askUser()) {
                    ask.add(a.name());
                }
            }
        }
        p.putAll(code.policies);
        ask.addAll(code.askUser);
        EngineConfig.ApprovalSettings file = config.approvals().orElse(null);
        this.defaultPolicy = code.defaultPolicy != null ? code.defaultPolicy
                : file != null && file.defaultPolicy() != null ? file.defaultPolicy() : ToolPolicy.ALLOW_ALL;
        // A coding agent's policy: its own (or the default) with the coding tools' defaults beneath.
        coding.forEach((agent, over) -> p.put(agent, over.apply(p.getOrDefault(agent, defaultPolicy))));
        this.policies = Map.copyOf(p);
        this.askUser = Set.copyOf(ask);
        Duration t = code.timeout != null ? code.timeout : file == null ? null : file.timeout();
        this.timeout = t;
        this.onTimeout = code.timeout != null ? code.onTimeout : file == null ? Approvals.OnTimeout.DENY : file.onTimeout();
        this.permissions = permissions != null ? permissions
                : dir == null ? null : new FilePermissionStore(dir.configFile().resolveSibling(PERMISSIONS_FILE));
        this.clock = clock;
        this.timer = t == null ? null
                : Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().name("shelly-decision-timer").factory());
    }

    /** A session's approvals, with nothing pending. */
    Approvals approvals() {
        Approvals.Builder b = Approvals.builder().defaultPolicy(defaultPolicy).clock(clock);
        policies.forEach(b::policy);
        if (permissions != null) {
            b.permissions(permissions);
        }
        if (timeout != null) {
            b.timeout(timeout, onTimeout);
        }
        return b.build();
    }

    /** The timer of decision timeouts, or null when decisions wait for ever. */
    ScheduledExecutorService timer() {
        return timer;
    }

    boolean asksUser(String agent) {
        return askUser.contains(agent);
    }

    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }

    /** What the engine's builder says about the human in the loop. */
    static final class Settings {
        private final Map<String, ToolPolicy> policies = new LinkedHashMap<>();
        private final Set<String> askUser = new LinkedHashSet<>();
        private ToolPolicy defaultPolicy;
        private Duration timeout;
        private Approvals.OnTimeout onTimeout = Approvals.OnTimeout.DENY;

        void policy(String agent, ToolPolicy policy) {
            if (agent == null || agent.isBlank()) {
                throw new IllegalArgumentException("Engine.Builder.toolPolicy agent must not be null or blank");
            }
            if (policy == null) {
                throw new IllegalArgumentException("Engine.Builder.toolPolicy of agent '" + agent + "' must not be null");
            }
            policies.put(agent, policy);
        }

        void defaultPolicy(ToolPolicy policy) {
            if (policy == null) {
                throw new IllegalArgumentException("Engine.Builder.defaultToolPolicy must not be null");
            }
            this.defaultPolicy = policy;
        }

        void askUser(String... agents) {
            if (agents == null) {
                throw new IllegalArgumentException("Engine.Builder.askUser agents must not be null");
            }
            for (int i = 0; i < agents.length; i++) {
                if (agents[i] == null || agents[i].isBlank()) {
                    throw new IllegalArgumentException("Engine.Builder.askUser agents[" + i + "] must not be null or blank");
                }
            }
            askUser.addAll(java.util.List.of(agents));
        }

        void timeout(Duration value, Approvals.OnTimeout action) {
            if (value == null || value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException("Engine.Builder.decisionTimeout must be positive, was " + value);
            }
            if (action == null) {
                throw new IllegalArgumentException("Engine.Builder.decisionTimeout action must not be null");
            }
            this.timeout = value;
            this.onTimeout = action;
        }

        /** Every agent named in code must be configured. */
        void check(EngineConfig config) {
            Set<String> known = new TreeSet<>();
            config.agents().forEach(a -> known.add(a.name()));
            for (String agent : policies.keySet()) {
                if (!known.contains(agent)) {
                    throw new IllegalArgumentException("Engine.Builder.toolPolicy names agent '" + agent
                            + "', which is not configured; configured agents: " + String.join(", ", known));
                }
            }
            for (String agent : askUser) {
                if (!known.contains(agent)) {
                    throw new IllegalArgumentException("Engine.Builder.askUser names agent '" + agent
                            + "', which is not configured; configured agents: " + String.join(", ", known));
                }
            }
        }
    }
}
