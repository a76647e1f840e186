package dev.shelly.engine;

import dev.shelly.agent.Agent;
import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.AgentListener;
import dev.shelly.agent.RunContext;
import dev.shelly.agent.RunObserver;
import dev.shelly.chats.Message;
import dev.shelly.engine.session.SessionRecord;
import dev.shelly.engine.session.SessionStore;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.Usage;
import dev.shelly.tools.RunValues;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The one live conversation of a session id in an engine, shared by every {@link Session} handle
 * the engine hands out for that id: the agent and its chat, the queue its turns run in one at a
 * time, the store lease that keeps other engines out, and the session's version, usage and cost.
 *
 * <p>Each turn runs in a fresh {@link RunContext} carrying the session id, the turn's run values
 * and the session's listener; the turn's usage and cost are that context's totals (delegated
 * children included), and the session's totals grow by them when the turn ends.
 */
final class LiveSession {
    private static final Logger LOG = LoggerFactory.getLogger(Session.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** How long closing waits for a cancelled turn to save before it lets the session go. */
    static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

    final String id;
    final String entryAgent;
    final Instant created;
    final Agent agent;
    private final SessionStore.Lease lease;
    private final Clock clock;
    private final ExecutorService turns = Executors.newSingleThreadExecutor(
            Thread.ofVirtual().name("shelly-session-turn").factory());
    private final ReentrantLock state = new ReentrantLock();
    private long version;
    private Usage usage;
    private Cost cost;
    /** The turns queued or running, of every handle. */
    final Set<Future<?>> pending = ConcurrentHashMap.newKeySet();
    private volatile TurnState current;
    private volatile boolean closed;

    private final AgentListener bus;
    /** The engine's telemetry, or null. */
    private final RunObserver observer;

    LiveSession(String id, String entryAgent, Instant created, Agent agent, SessionStore.Lease lease, Clock clock,
            long version, Usage usage, Cost cost, AgentListener bus, RunObserver observer) {
        this.bus = bus;
        this.observer = observer;
        this.id = id;
        this.entryAgent = entryAgent;
        this.created = created;
        this.agent = agent;
        this.lease = lease;
        this.clock = clock;
        this.version = version;
        this.usage = usage;
        this.cost = cost;
    }

    boolean closed() {
        return closed;
    }

    /** Queues a turn for a handle. */
    void execute(Runnable task) {
        if (closed) {
            throw new RejectedExecutionException();
        }
        turns.execute(task);
    }

    /** Runs one turn on the session's turn thread, with the session and turn ids in the MDC. */
    Turn runTurn(Session owner, String text, RunValues values) {
        TurnState turn = new TurnState(newTurnId(), owner);
        RunContext.Builder scope = RunContext.builder().sessionId(id).values(values).listener(bus.andThen(this::observe));
        if (observer != null) {
            scope.observers(observer);
        }
        RunContext run = scope.build();
        current = turn;
        MDC.put(Session.MDC_SESSION, id);
        MDC.put(Session.MDC_TURN, turn.id);
        long start = System.nanoTime();
        try {
            LOG.debug("session {} turn {} starts: {} characters for agent '{}'", id, turn.id, text.length(), entryAgent);
            Message reply;
            try {
                reply = agent.run(text, run);
            } catch (RuntimeException | Error failure) {
                Usage used = run.usage();
                Cost spent = run.cost();
                add(used, spent);
                try {
                    save();
                } catch (RuntimeException e) {
                    failure.addSuppressed(e);
                }
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                if (failure instanceof CancellationException) {
                    LOG.info("session {} turn {} cancelled after {} ms; used {}", id, turn.id, took.toMillis(),
                            describe(used, spent));
                } else {
                    LOG.warn("session {} turn {} failed after {} ms: {}; used {}", id, turn.id, took.toMillis(),
                            failure.toString(), describe(used, spent));
                }
                throw failure;
            }
            Usage used = run.usage();
            Cost spent = run.cost();
            add(used, spent);
            save();
            Turn result = new Turn(turn.id, reply, used, spent, Duration.ofNanos(System.nanoTime() - start));
            LOG.info("session {} turn {} finished in {} ms; used {}", id, turn.id, result.took().toMillis(),
                    describe(used, spent));
            return result;
        } finally {
            current = null;
            MDC.remove(Session.MDC_SESSION);
            MDC.remove(Session.MDC_TURN);
        }
    }

    private void add(Usage used, Cost spent) {
        state.lock();
        try {
            usage = usage.plus(used);
            cost = cost.plus(spent);
        } finally {
            state.unlock();
        }
    }

    private static String describe(Usage u) {
        return u.inputTokens() + " input, " + u.outputTokens() + " output, " + u.cacheReadTokens() + " cache-read, "
                + u.cacheWriteTokens() + " cache-write tokens";
    }

    private static String describe(Usage u, Cost c) {
        return describe(u) + ", $" + c.usd().toPlainString()
                + (c.complete() ? "" : " (" + c.unpricedTokens() + " tokens unpriced)");
    }

    /** Every agent event of the session's turns (delegated children included): the turn's listener, debug logs. */
    private void observe(AgentEvent event) {
        TurnState turn = current;
        if (LOG.isDebugEnabled()) {
            debug(event, turn);
        }
        if (turn != null) {
            AgentListener listener = turn.owner.listener();
            if (listener != AgentListener.NONE) {
                listener.onEvent(event);
            }
        }
    }

    /** The model requests and tool calls at DEBUG: names and counts, never their content. */
    private void debug(AgentEvent event, TurnState turn) {
        String who = event.source().agent();
        boolean foreign = turn != null && MDC.get(Session.MDC_SESSION) == null;
        if (foreign) {
            // A thread the agent started (a tool call, a delegation) whose MDC did not inherit the turn's.
            MDC.put(Session.MDC_SESSION, id);
            MDC.put(Session.MDC_TURN, turn.id);
        }
        try {
            switch (event) {
                case AgentEvent.CompletionStarted s -> LOG.debug("session {}: agent '{}' asks its model (iteration {})",
                        id, who, s.iteration());
                case AgentEvent.CompletionFinished f -> LOG.debug(
                        "session {}: agent '{}' got its model's reply in {} ms ({} tool calls); used {}", id, who,
                        f.took().toMillis(), f.reply().toolCalls().size(), describe(f.usage()));
                case AgentEvent.ToolCallFinished t -> LOG.debug("session {}: agent '{}' tool '{}' {} in {} ms", id, who,
                        t.call().name(), t.result().isError() ? "failed" : "done", t.took().toMillis());
                default -> { }
            }
        } finally {
            if (foreign) {
                MDC.remove(Session.MDC_SESSION);
                MDC.remove(Session.MDC_TURN);
            }
        }
    }

    Usage usage() {
        state.lock();
        try {
            return usage;
        } finally {
            state.unlock();
        }
    }

    Cost cost() {
        state.lock();
        try {
            return cost;
        } finally {
            state.unlock();
        }
    }

    /**
     * Saves a snapshot. The version and the messages are taken together under a lock, so a higher
     * version always holds at least what a lower one does; the lease skips a version lower than
     * the one saved, so concurrent saves never let an older snapshot replace a newer one.
     */
    void save() {
        if (lease == null) {
            return;
        }
        SessionRecord record;
        state.lock();
        try {
            version++;
            List<Message> messages = agent.chat().messages();
            record = new SessionRecord(id, entryAgent, created, clock.instant(), messages, version, usage, cost);
        } finally {
            state.unlock();
        }
        if (lease.save(record)) {
            LOG.debug("session {} saved: version {}, {} messages", id, record.version(), record.messages().size());
        } else {
            LOG.debug("session {}: version {} not saved, a newer one is saved already", id, record.version());
        }
    }

    /**
     * Stops the session: drops queued turns, interrupts the running one, waits (bounded) for it to
     * save, then lets the store lease go. Called once, by the engine, when the last handle closes
     * or the engine closes.
     */
    void shutdown() {
        closed = true;
        for (Future<?> turn : pending.toArray(Future[]::new)) {
            turn.cancel(true);
        }
        for (Runnable never : turns.shutdownNow()) {
            if (never instanceof Future<?> f) {
                f.cancel(false);
            }
        }
        boolean stopped;
        try {
            stopped = turns.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopped = false;
        }
        if (!stopped) {
            LOG.warn("session {}: its turn did not stop within {} ms of being cancelled; the session is let go and a "
                    + "later save of that turn is refused", id, CLOSE_WAIT.toMillis());
        }
        if (lease != null) {
            lease.close();
        }
        LOG.info("session {} closed", id);
    }

    private static String newTurnId() {
        byte[] bytes = new byte[8];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /** The running turn: its id and the handle that sent it. */
    private record TurnState(String id, Session owner) {}
}
