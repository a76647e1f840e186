package dev.shelly.engine;

import dev.shelly.agent.Agent;
import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.AgentListener;
import dev.shelly.agent.Answer;
import dev.shelly.agent.Approvals;
import dev.shelly.agent.Conversation;
import dev.shelly.agent.PendingCall;
import dev.shelly.agent.RunPausedException;
import dev.shelly.agent.RunContext;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.agent.RunObserver;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.storage.SessionRecord;
import dev.shelly.storage.spi.SessionStore;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.Usage;
import dev.shelly.tools.RunValues;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
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
 * the engine hands out for that id: the agent and the {@link Conversation} its turns run on (the
 * chat and what context management keeps between turns; the agent itself holds no run state),
 * the queue its turns run in one at a time, the store lease that keeps other engines out, and the
 * session's version, usage and cost.
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
    /** The session's conversation: its chat and the state context management keeps between turns. */
    final Conversation conversation;
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
    /** The session's human in the loop: its policies, what its paused turn waits for, its answers. */
    final Approvals approvals;
    private final ScheduledExecutorService timer;
    private volatile ScheduledFuture<?> expiry;
    /** What every turn's run context carries besides the session's own. */
    private final Links links;
    /** The session's journal: a turn's steps as they happen, and a turn a crash cut short. */
    final SessionJournal journal;
    /** The runs of the turn running now, or of the last one. */
    final SessionRuns runs;

    /**
     * What a session is when it is opened: new, or as it was saved.
     *
     * @param id the session's id
     * @param entryAgent the agent answering in it
     * @param created when it began
     * @param version the version saved last (0 for a new session)
     * @param usage the tokens used so far
     * @param cost what they cost
     */
    record Saved(String id, String entryAgent, Instant created, long version, Usage usage, Cost cost) {}

    /**
     * What the engine puts into the run context of every turn, so that each run of the turn
     * (delegated ones included) passes through it once.
     *
     * @param interceptors the links given to {@link Engine.Builder#interceptors}
     * @param observer the engine's telemetry, or null
     */
    record Links(List<RunInterceptor> interceptors, RunObserver observer) {}

    LiveSession(Saved saved, Agent agent, Conversation conversation, SessionStore.Lease lease, Clock clock,
            AgentListener bus, Approvals approvals, ScheduledExecutorService timer, Links links, SessionJournal journal) {
        this.journal = journal;
        this.runs = new SessionRuns(clock);
        this.bus = bus;
        this.approvals = approvals;
        this.timer = timer;
        this.links = links;
        this.id = saved.id();
        this.entryAgent = saved.entryAgent();
        this.created = saved.created();
        this.agent = agent;
        this.conversation = conversation;
        this.lease = lease;
        this.clock = clock;
        this.version = saved.version();
        this.usage = saved.usage();
        this.cost = saved.cost();
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

    /**
     * Runs one turn on the session's turn thread, with the session and turn ids in the MDC.
     *
     * @param owner the handle that sent it, or null for a turn the session runs itself (a timeout)
     * @param text what the user says, or null to go on with a paused turn
     */
    Turn runTurn(Session owner, String text, RunValues values) {
        return runTurn(owner, text, values, null);
    }

    /**
     * Runs one turn; see {@link #runTurn(Session, String, RunValues)}.
     *
     * @param stop for a turn a crash cut short, why it ends at its first step its journal does not
     *     hold; null to go on
     */
    private Turn runTurn(Session owner, String text, RunValues values, String stop) {
        TurnState turn = new TurnState(newTurnId(), owner);
        current = turn;
        MDC.put(Session.MDC_SESSION, id);
        MDC.put(Session.MDC_TURN, turn.id);
        long start = System.nanoTime();
        try {
            LOG.debug("session {} turn {} starts: {} for agent '{}'", id, turn.id,
                    text == null ? "going on after decisions" : text.length() + " characters", entryAgent);
            if (text == null && !paused()) {
                throw new IllegalStateException("session " + id + " waits for no decision; send a message instead");
            }
            if (text != null && paused()) {
                throw new IllegalStateException("session " + id + " waits for decisions on "
                        + SessionLog.ids(pending()) + "; answer them and proceed, or cancel the session's paused turn, before sending a message");
            }
            List<Message> input = text == null ? List.of() : List.of(Message.user(text));
            TurnJournal link = null;
            if (journal.enabled()) {
                if (journal.interrupted()) {
                    link = journal.replay(stop);
                    input = journal.input();
                } else {
                    if (journal.dirty()) {
                        save(); // a save that failed left the last turn's entries: compact them first
                    }
                    link = journal.begin(version(), turn.id, input);
                }
            }
            runs.turn(link != null && link.replay() != null ? link.replay().journal.cancelled : Set.of());
            RunContext run = context(values, link);
            Message reply;
            try {
                reply = agent.run(conversation, input, run);
            } catch (Replay.Ended ended) {
                // A turn taken up after a crash that ends where its journal ends: it ends with what it has.
                reply = conversation.chat().last().orElseThrow();
            } catch (RunPausedException paused) {
                Usage used = run.usage();
                Cost spent = run.cost();
                add(used, spent);
                end(link);
                save();
                scheduleExpiry();
                List<PendingCall> waiting = pending();
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                LOG.info("session {} turn {} paused after {} ms for decisions on {}; used {}", id, turn.id,
                        took.toMillis(), SessionLog.ids(waiting), SessionLog.describe(used, spent));
                return new Turn(turn.id, conversation.chat().last().orElseThrow(), used, spent, took, waiting);
            } catch (RuntimeException | Error failure) {
                Usage used = run.usage();
                Cost spent = run.cost();
                add(used, spent);
                try {
                    end(link);
                    save();
                } catch (RuntimeException e) {
                    failure.addSuppressed(e);
                }
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                if (failure instanceof CancellationException) {
                    LOG.info("session {} turn {} cancelled after {} ms; used {}", id, turn.id, took.toMillis(),
                            SessionLog.describe(used, spent));
                } else {
                    LOG.warn("session {} turn {} failed after {} ms: {}; used {}", id, turn.id, took.toMillis(),
                            failure.toString(), SessionLog.describe(used, spent));
                }
                throw failure;
            }
            Usage used = run.usage();
            Cost spent = run.cost();
            add(used, spent);
            end(link);
            save();
            Turn result = new Turn(turn.id, reply, used, spent, Duration.ofNanos(System.nanoTime() - start));
            LOG.info("session {} turn {} finished in {} ms; used {}", id, turn.id, result.took().toMillis(),
                    SessionLog.describe(used, spent));
            return result;
        } finally {
            current = null;
            MDC.remove(Session.MDC_SESSION);
            MDC.remove(Session.MDC_TURN);
        }
    }

    /**
     * The context of a turn: its journal's link outermost, when the session keeps a journal, then
     * the link that keeps its runs, then the engine's links.
     */
    private RunContext context(RunValues values, TurnJournal link) {
        List<RunInterceptor> chain = new ArrayList<>(links.interceptors().size() + 2);
        if (link != null) {
            chain.add(link);
        }
        chain.add(runs);
        chain.addAll(links.interceptors());
        RunContext.Builder scope = RunContext.builder().sessionId(id).values(values).listener(bus.andThen(this::observe))
                .approvals(approvals).interceptors(chain.toArray(RunInterceptor[]::new));
        if (links.observer() != null) {
            scope.observers(links.observer());
        }
        if (link != null && link.replay() != null) {
            scope.runIds(link.replay()::runId);
        }
        return scope.build();
    }

    /** Records the end of a journaled turn, before the save that compacts its journal. */
    private void end(TurnJournal link) {
        if (link != null) {
            journal.end();
        }
    }

    /**
     * Whether the session waits: for decisions on calls, or to take up a turn a crash cut short.
     *
     * @return true when paused
     */
    boolean paused() {
        return approvals.paused() || journal.interrupted();
    }

    /**
     * What the session waits for; see {@link Session#pending()}.
     *
     * @return the calls
     */
    List<PendingCall> pending() {
        return journal.pending(approvals);
    }

    /**
     * Answers a waiting call, or an entry of a turn a crash cut short, and keeps the answer: in the
     * journal while one is open (a save would compact it), else with a save.
     */
    void answer(String call, Answer answer) {
        if (journal.answer(call, answer)) {
            return;
        }
        approvals.answer(call, answer);
        keep(call, answer);
    }

    private void keep(String call, Answer answer) {
        if (journalOpen()) {
            journal.decision(call, answer);
        } else {
            save();
        }
    }

    /** Whether the journal holds a turn that no save has compacted yet: one running, or one a crash cut short. */
    private boolean journalOpen() {
        return journal.enabled() && (current != null || journal.interrupted());
    }

    /** A save asked for by the application: skipped while the journal holds the turn's steps. */
    void saveNow() {
        if (!journalOpen()) {
            save();
        }
    }

    /**
     * The calls of a turn a crash cut short that a person must answer before it goes on.
     *
     * @return the calls, empty when none waits
     */
    List<PendingCall> asked() {
        return journal.asked(approvals);
    }

    /**
     * Cancels one run of the turn and those below it; see {@link Session#cancel(String)}. The
     * journal, while it holds the turn, records the cancel before it takes effect.
     */
    boolean cancelRun(String runId) {
        return runs.cancel(id, runId, entry -> {
            if (journalOpen()) {
                lease.append(entry);
            }
        }, this::cancelPaused);
    }

    /**
     * Ends the paused turn on the turn thread: every call that did not run is answered
     * {@code tool 'x' was not run: <reason>}, and the session is saved.
     *
     * @return true when a paused turn was ended
     */
    boolean cancelPaused(String reason) {
        FutureTask<Boolean> task = new FutureTask<>(() -> endPaused(reason));
        execute(task);
        try {
            return task.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while cancelling the paused turn of session " + id);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException("cancelling the paused turn of session " + id + " failed: " + e.getCause(),
                    e.getCause());
        }
    }

    private boolean endPaused(String reason) {
        if (journal.interrupted()) {
            try {
                runTurn(null, null, RunValues.EMPTY, reason);
            } catch (CancellationException ended) {
                // the turn ended where its journal ended, as asked
            }
            LOG.info("session {}: its interrupted turn was ended ({})", id, reason);
            if (!approvals.paused()) {
                return true;
            }
        }
        if (!approvals.paused()) {
            return false;
        }
        List<PendingCall> waiting = approvals.pending();
        boolean ended = agent.cancelPaused(conversation, context(RunValues.EMPTY, null), reason);
        approvals.clearPaused();
        save();
        LOG.info("session {}: its paused turn was ended ({}): {}", id, reason, SessionLog.ids(waiting));
        return ended;
    }

    /** Plans the check of the first decision to run out of time, replacing an earlier plan. */
    void scheduleExpiry() {
        if (timer == null || closed) {
            return;
        }
        Optional<Instant> due = approvals.deadline();
        ScheduledFuture<?> old = expiry;
        if (old != null) {
            old.cancel(false);
        }
        if (due.isEmpty()) {
            return;
        }
        long delay = Math.max(0, Duration.between(clock.instant(), due.get()).toMillis());
        expiry = timer.schedule(() -> {
            try {
                execute(this::expire);
            } catch (RejectedExecutionException closing) {
                // the session was let go meanwhile; the next holder checks again
            }
        }, delay, TimeUnit.MILLISECONDS);
    }

    /** On the turn thread: denies the calls that waited too long and goes on, or ends the paused turn. */
    private void expire() {
        List<PendingCall> late = approvals.expired(clock.instant());
        if (late.isEmpty()) {
            scheduleExpiry();
            return;
        }
        String why = "no decision within " + SessionLog.describe(approvals.timeout().orElseThrow());
        try {
            if (approvals.onTimeout() == Approvals.OnTimeout.CANCEL) {
                endPaused(why + "; the turn was cancelled");
                return;
            }
            for (PendingCall p : late) {
                try {
                    approvals.answer(p.id(), Answer.deny(why));
                    if (journalOpen()) {
                        journal.decision(p.id(), Answer.deny(why));
                    }
                } catch (IllegalStateException answered) {
                    // answered meanwhile
                }
            }
            LOG.info("session {}: {} for {}; denied", id, why, SessionLog.ids(late));
            if (approvals.unanswered().isEmpty() && asked().isEmpty()) {
                runTurn(null, null, RunValues.EMPTY);
            } else {
                if (!journalOpen()) {
                    save();
                }
                scheduleExpiry();
            }
        } catch (RuntimeException e) {
            LOG.warn("session {}: going on after the decision timeout failed: {}", id, e.toString());
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

    /** Every agent event of the session's turns (delegated children included): the turn's listener, debug logs. */
    private void observe(AgentEvent event) {
        TurnState turn = current;
        if (LOG.isDebugEnabled()) {
            SessionLog.debug(LOG, event, id, turn == null ? null : turn.id);
        }
        if (turn != null && turn.owner != null) {
            AgentListener listener = turn.owner.listener();
            if (listener != AgentListener.NONE) {
                listener.onEvent(event);
            }
        }
    }

    private long version() {
        state.lock();
        try {
            return version;
        } finally {
            state.unlock();
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
            List<Chat.Entry> entries = conversation.chat().entries();
            record = new SessionRecord(id, entryAgent, created, clock.instant(), entries, version, usage, cost,
                    approvals.state());
        } finally {
            state.unlock();
        }
        if (lease.save(record)) {
            journal.saved();
            LOG.debug("session {} saved: version {}, {} messages", id, record.version(), record.entries().size());
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
        ScheduledFuture<?> planned = expiry;
        if (planned != null) {
            planned.cancel(false);
        }
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
