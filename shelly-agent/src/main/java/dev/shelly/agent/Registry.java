package dev.shelly.agent;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * A directory of agents that can be delegated to: each entry has a name, a description (shown to
 * other agents) and a factory that builds a fresh agent.
 *
 * <p>Every {@link #spawn} calls the factory, so each delegation gets a new agent with a clean
 * chat and no state left over from another task. Safe for many threads: registration is
 * serialised, reads work on an immutable snapshot.
 *
 * <pre>{@code
 * Registry registry = new Registry()
 *     .register("researcher", "Finds information on the web", () -> Agent.builder("researcher")...build())
 *     .register("writer", "Writes clear summaries", () -> Agent.builder("writer")...build());
 * Agent lead = Agent.builder("lead").registry(registry).maxDelegationDepth(2)...build();
 * }</pre>
 */
public final class Registry {

    /**
     * What the registry tells about an agent.
     *
     * @param name the agent's name
     * @param description what it does
     */
    public record Entry(String name, String description) {}

    private record Registration(Entry entry, Supplier<Agent> factory) {}

    private final ReentrantLock registration = new ReentrantLock();
    private volatile Map<String, Registration> agents = Map.of();
    private volatile List<Entry> entries = List.of();

    /** An empty registry. */
    public Registry() {}

    /**
     * Adds an agent.
     *
     * @param name the name other agents delegate to; the factory's agents must carry it; 1 to 64
     *     letters, digits, '_' or '-', as for {@link Agent#builder}
     * @param description what the agent does, shown to other agents
     * @param factory builds a fresh agent on every call
     * @return this registry
     * @throws IllegalArgumentException when an argument is missing, the name is invalid or taken
     */
    public Registry register(String name, String description, Supplier<Agent> factory) {
        String invalid = invalidName(name);
        if (invalid != null) {
            throw new IllegalArgumentException("Registry.register: " + invalid);
        }
        if (description == null) {
            throw new IllegalArgumentException("Registry.register description of '" + name + "' must not be null");
        }
        if (factory == null) {
            throw new IllegalArgumentException("Registry.register factory of '" + name + "' must not be null");
        }
        registration.lock();
        try {
            if (agents.containsKey(name)) {
                throw new IllegalArgumentException("an agent named '" + name + "' is already registered");
            }
            Map<String, Registration> next = new HashMap<>(agents);
            Entry entry = new Entry(name, description.strip());
            next.put(name, new Registration(entry, factory));
            List<Entry> list = new ArrayList<>(entries);
            list.add(entry);
            list.sort(Comparator.comparing(Entry::name));
            agents = Collections.unmodifiableMap(next);
            entries = Collections.unmodifiableList(list);
            return this;
        } finally {
            registration.unlock();
        }
    }

    /**
     * The factory of an agent.
     *
     * @param name the agent's name
     * @return the factory, or empty when no agent has that name
     */
    public Optional<Supplier<Agent>> get(String name) {
        Registration r = agents.get(named(name, "get"));
        return r == null ? Optional.empty() : Optional.of(r.factory());
    }

    /**
     * Whether an agent of that name is registered.
     *
     * @param name the agent's name
     * @return true when registered
     */
    public boolean contains(String name) {
        return agents.containsKey(named(name, "contains"));
    }

    /**
     * Every entry, sorted by name.
     *
     * @return an unmodifiable list
     */
    public List<Entry> list() {
        return entries;
    }

    /**
     * Builds a fresh agent from its factory. Where it runs in a delegation tree is the business
     * of the run that starts it: {@code delegate} runs it in a {@link RunContext} one level below
     * the delegating run, with this registry unless the agent was built with its own.
     *
     * @param name the agent's name
     * @return the agent, or empty when no agent has that name
     * @throws IllegalStateException when the factory returns null, an agent of another name, or
     *     an agent it returned before
     */
    public Optional<Agent> spawn(String name) {
        return Optional.ofNullable(spawned(named(name, "spawn")));
    }

    /** A name looked up, refused when null (a hash lookup would only answer that nothing has it). */
    private static String named(String name, String method) {
        if (name == null) {
            throw new IllegalArgumentException("Registry." + method + " name must not be null");
        }
        return name;
    }

    /** What {@link #spawn} returns, or null when no agent has that name. */
    Agent spawned(String name) {
        Registration r = agents.get(name);
        if (r == null) {
            return null;
        }
        Agent agent = r.factory().get();
        if (agent == null) {
            throw new IllegalStateException("the factory of agent '" + name + "' returned null");
        }
        if (!agent.name().equals(name)) {
            throw new IllegalStateException("the factory of agent '" + name + "' built an agent named '"
                    + agent.name() + "'; register it under that name or build it with this one");
        }
        // A factory must build a fresh agent on every call: each delegated child continues the
        // conversation of its own agent, and two children must not share one.
        if (!agent.conversation().claimSpawned()) {
            throw new IllegalStateException("the factory of agent '" + name + "' returned an agent it had returned "
                    + "before; a factory must build a fresh agent on every call");
        }
        return agent;
    }

    @Override
    public String toString() {
        List<String> names = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            names.add(e.name());
        }
        return "Registry" + names;
    }

    /**
     * Whether providers accept a name: 1 to 64 ASCII letters, digits, '_' or '-'. Checked by hand
     * rather than with a pattern: every agent built checks its name, and a matcher per agent is
     * garbage a fan-out of many agents pays for.
     */
    private static boolean validName(String name) {
        if (name == null || name.isEmpty() || name.length() > 64) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
                return false;
            }
        }
        return true;
    }

    /** Says what is wrong with an agent name, or returns null when providers accept it. */
    static String invalidName(String name) {
        if (validName(name)) {
            return null;
        }
        return "agent name " + (name == null ? "null" : "'" + name + "'") + " is invalid: use 1 to 64 letters, "
                + "digits, '_' or '-' (providers accept only these in the tool and sender names an agent's name "
                + "appears in)";
    }
}
