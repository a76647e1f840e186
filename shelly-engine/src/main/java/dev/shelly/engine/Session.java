package dev.shelly.engine;

import dev.shelly.agent.Agent;
import dev.shelly.agent.AgentListener;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.ShellyException;
import dev.shelly.engine.session.SessionRecord;
import dev.shelly.engine.session.SessionStore;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A conversation with the engine's entry agent.
 *
 * <p>One turn runs at a time: inputs sent while a turn runs wait in a queue and run in the order
 * they were sent. After every turn — answered, failed or cancelled — the conversation is saved
 * (when the engine saves sessions), so it can be {@linkplain Engine#resume resumed} by id. A
 * turn is cancelled by {@link #cancel()}, by cancelling its {@link Future}, or by interrupting
 * the thread blocked in {@link #send}.
 */
public final class Session implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Session.class);
    private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String id;
    private final String entryAgent;
    private final Instant created;
    private final Agent agent;
    private final SessionStore store;
    private final Clock clock;
    private final Consumer<Session> onClose;
    private final ExecutorService turns = Executors.newSingleThreadExecutor(
            Thread.ofVirtual().name("shelly-session-turn").factory());
    private final java.util.Set<Future<?>> pending = java.util.concurrent.ConcurrentHashMap.newKeySet();

    Session(String id, String entryAgent, Instant created, Agent agent, SessionStore store, Clock clock,
            Consumer<Session> onClose) {
        this.id = id;
        this.entryAgent = entryAgent;
        this.created = created;
        this.agent = agent;
        this.store = store;
        this.clock = clock;
        this.onClose = onClose;
    }

    static String newId(Clock clock) {
        byte[] bytes = new byte[3];
        RANDOM.nextBytes(bytes);
        return ID_TIME.format(clock.instant()) + "-" + HexFormat.of().formatHex(bytes);
    }

    /**
     * The session's id, under which it is saved.
     *
     * @return the id
     */
    public String id() {
        return id;
    }

    /**
     * The agent answering in this session.
     *
     * @return its name
     */
    public String entryAgent() {
        return entryAgent;
    }

    /**
     * The conversation so far, system prompt included.
     *
     * @return the chat (thread-safe; read it, do not append to it while a turn runs)
     */
    public Chat chat() {
        return agent.chat();
    }

    /**
     * Tells a listener of this session's events too, synchronously, on the threads the agents run
     * on (delegated children included), and in order: for a view that must show the events of a
     * turn before the turn returns. The engine's {@link Engine#events() bus} still gets them all.
     *
     * @param listener the listener; it should return quickly
     * @return this session
     */
    public Session listen(AgentListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("Session.listen listener must not be null");
        }
        agent.setListener(agent.listener().andThen(listener));
        return this;
    }

    /**
     * Sends a user message and waits for the entry agent's answer. Waits behind turns already
     * queued.
     *
     * @param text what the user says
     * @return the agent's final answer
     * @throws ShellyException the agent's failure (a model error, an agent error)
     * @throws CancellationException when the turn was cancelled or the waiting thread interrupted
     *     (the turn is then cancelled too)
     */
    public Message send(String text) {
        Future<Message> turn = submit(text);
        try {
            return turn.get();
        } catch (InterruptedException e) {
            turn.cancel(true);
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while waiting for the answer in session " + id);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new ShellyException("session " + id + ": the turn failed: " + cause, cause);
        }
    }

    /**
     * Queues a user message; the turn runs after those queued before it.
     *
     * @param text what the user says
     * @return the turn's answer to come; cancelling it interrupts the turn
     * @throws IllegalStateException when the session is closed
     */
    public Future<Message> submit(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("the text sent to session " + id + " must not be null or blank");
        }
        FutureTask<Message> turn = new FutureTask<>(() -> runTurn(text)) {
            @Override
            protected void done() {
                pending.remove(this);
            }
        };
        pending.add(turn);
        try {
            turns.execute(turn);
        } catch (RejectedExecutionException e) {
            pending.remove(turn);
            throw new IllegalStateException("session " + id + " is closed");
        }
        return turn;
    }

    private Message runTurn(String text) {
        Message reply;
        try {
            reply = agent.run(text);
        } catch (RuntimeException | Error failure) {
            try {
                saveAfterTurn();
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
            throw failure;
        }
        saveAfterTurn();
        return reply;
    }

    /** Saves with the interrupt flag cleared meanwhile: an interrupted thread cannot write a file channel. */
    private void saveAfterTurn() {
        boolean interrupted = Thread.interrupted();
        try {
            save();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Cancels the running turn and every queued one. */
    public void cancel() {
        for (Future<?> f : pending.toArray(Future[]::new)) {
            f.cancel(true);
        }
    }

    /**
     * Saves the conversation now; a no-op when the engine saves no sessions.
     *
     * @throws ShellyException naming the file when it cannot be written
     */
    public void save() {
        if (store == null) {
            return;
        }
        store.save(new SessionRecord(id, entryAgent, created, clock.instant(), agent.chat().messages()));
        LOG.debug("session {} saved ({} messages)", id, agent.chat().size());
    }

    /** Cancels what runs and is queued, and stops taking input. */
    @Override
    public void close() {
        cancel();
        turns.shutdownNow();
        onClose.accept(this);
    }

    @Override
    public String toString() {
        return "Session[" + id + ", agent=" + entryAgent + ", " + agent.chat().size() + " messages]";
    }
}
