package dev.shelly.agent;

import dev.shelly.chats.Chat;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The state of one conversation with agents: its {@link Chat}, and what context management keeps
 * between an agent's model calls on it (the last view, measurements, per-strategy state). An
 * {@link Agent} is a description and holds none of this, so one agent may run any number of
 * conversations at once, each on its own thread:
 *
 * <pre>{@code
 * Agent support = Agent.builder("support").completer(model).toolboxes(tools).build();   // shared
 * Conversation alice = new Conversation();
 * Conversation bob = new Conversation();
 * support.run(alice, "My order is late", RunContext.root());          // on one thread
 * support.run(bob, "How do I reset my password?", RunContext.root()); // on another
 * }</pre>
 *
 * A paused turn is part of the conversation too: the chat ends with the agent's reply whose calls
 * have no results yet, and the next run on the conversation takes it up (what the approvals kept
 * for it lives in the run context's {@link Approvals}, which the caller or the engine's session
 * owns with the conversation).
 *
 * <p>A conversation is used by one run at a time: a second run that starts on it while one is
 * running is refused. The convenience methods without a conversation ({@link Agent#run(String)}
 * and its siblings) run on the agent's own conversation ({@link Agent#conversation()}), which the
 * builder's {@linkplain Agent.Builder#chat chat} starts from.
 */
public final class Conversation {
    private static final VarHandle RUNNING;
    private static final VarHandle SPAWNED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            RUNNING = lookup.findVarHandle(Conversation.class, "running", boolean.class);
            SPAWNED = lookup.findVarHandle(Conversation.class, "spawned", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Chat chat;
    /** Whether a run is on the conversation; a field, not an atomic object: many conversations wait at once. */
    private volatile boolean running;
    /** Whether a registry gave out the agent this conversation belongs to ({@link #claimSpawned}). */
    private volatile boolean spawned;
    /**
     * What the runs keep between them per agent that ran here (context management's state), by
     * the agent's identity; touched only by the one running run. The first agent's is kept in
     * the two fields, without a map: most conversations see one agent.
     */
    private Object firstAgent;
    private Object firstState;
    private Map<Object, Object> states;

    /** A conversation on a new, empty chat. */
    public Conversation() {
        this(new Chat());
    }

    /**
     * A conversation that goes on from a chat, for example one restored from storage or one shared
     * with other agents.
     *
     * @param chat the chat; later runs append to it
     */
    public Conversation(Chat chat) {
        if (chat == null) {
            throw new IllegalArgumentException("Conversation chat must not be null");
        }
        this.chat = chat;
    }

    /**
     * The conversation's chat: every message of it, the system prompt, summaries and notes
     * included.
     *
     * @return the chat
     */
    public Chat chat() {
        return chat;
    }

    /**
     * Whether a run is using the conversation now.
     *
     * @return true while a run is on it
     */
    public boolean running() {
        return running;
    }

    /** Takes the conversation for one run; false when another run has it. */
    boolean begin() {
        return RUNNING.compareAndSet(this, false, true);
    }

    /** Gives the conversation back after a run. */
    void end() {
        running = false;
    }

    /** The state an agent keeps on this conversation, or null before its first run here. */
    Object state(Object agent) {
        if (firstAgent == agent) {
            return firstState;
        }
        return states == null ? null : states.get(agent);
    }

    /** Keeps the state an agent made at its first run here. */
    void keep(Object agent, Object state) {
        if (firstAgent == null) {
            firstAgent = agent;
            firstState = state;
            return;
        }
        if (states == null) {
            states = new IdentityHashMap<>(2);
        }
        states.put(agent, state);
    }

    /**
     * Marks the conversation as the one of an agent a registry gave out; false when it was
     * marked before, that is when a factory returned the same agent twice.
     */
    boolean claimSpawned() {
        return SPAWNED.compareAndSet(this, false, true);
    }

    @Override
    public String toString() {
        return "Conversation[" + chat.size() + " messages" + (running ? ", running" : "") + "]";
    }
}
