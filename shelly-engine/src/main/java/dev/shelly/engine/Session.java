package dev.shelly.engine;

import dev.shelly.agent.AgentListener;
import dev.shelly.agent.Answer;
import dev.shelly.agent.PendingCall;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ShellyException;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.Usage;
import dev.shelly.storage.SessionRecord;
import dev.shelly.tools.RunValues;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A handle on a conversation with one of the engine's agents: the entry agent, or the one it was
 * started with ({@link Engine#newSessionWith}).
 *
 * <p><b>One live conversation per id.</b> An engine keeps one live conversation per session id:
 * every {@link Engine#resume} (and the {@link Engine#newSession} that began it) returns a new
 * handle on the same chat, the same turn queue and the same store lease. Turns sent through any
 * handle run one at a time, in the order they were sent; none is lost. The conversation stays
 * live while a handle is open; when the last handle closes, the engine lets it go (its turn
 * thread ends, its store lease is released and other engines and processes may hold it).
 *
 * <p><b>Saved after every turn.</b> After every turn — answered, failed or cancelled — the
 * conversation is saved (when the engine saves sessions), so it can be resumed by id.
 *
 * <p><b>A handle's own turns.</b> A handle's {@link #cancel()}, {@link #close()} and
 * {@link #listen listeners} concern the turns sent through it, so one request of a service does
 * not cancel, or hear, another request's turn on the same conversation. A turn is cancelled by
 * {@link #cancel()}, by cancelling its {@link Future}, by interrupting the thread blocked in
 * {@link #send}, or by {@link #close()}.
 *
 * <p><b>Decisions.</b> When a tool call needs a person's decision (the agent's
 * {@linkplain dev.shelly.agent.ToolPolicy tool policy} asks about it, or the model asks a
 * question with {@code ask_user}), the turn pauses: the turn's other calls still run, and
 * {@link #send} returns a {@link Turn} that is {@linkplain Turn#paused() paused}, listing the
 * {@linkplain #pending() pending calls} (each also announced on the bus as an
 * {@link dev.shelly.agent.AgentEvent.DecisionNeeded}). The session is saved with what it waits
 * for, so the decision may come from another process after a restart: {@link #answer} each call,
 * then {@link #proceed} runs the rest of the turn. {@link #cancel()} ends a paused turn, answering
 * every waiting call as not run. While a turn is paused, {@link #send} refuses new messages.
 *
 * <p><b>Logging.</b> While a turn runs, the logging MDC of its thread holds
 * {@value #MDC_SESSION} (the session id) and {@value #MDC_TURN} (the turn id). Threads the agent
 * starts (concurrent tool calls, delegated agents) inherit them when the slf4j binding's MDC is
 * inheritable (slf4j's basic adapter is; logback's is not); the engine's own log lines on those
 * threads carry them either way.
 *
 * <p>Handles are safe for use by many threads.
 */
public final class Session implements AutoCloseable {
    /** The MDC key of the session id while a turn runs. */
    public static final String MDC_SESSION = "shelly.session";
    /** The MDC key of the turn id while a turn runs. */
    public static final String MDC_TURN = "shelly.turn";

    private final LiveSession live;
    private final Runnable release;
    private final Set<Future<?>> pending = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile AgentListener listener = AgentListener.NONE;

    Session(LiveSession live, Runnable release) {
        this.live = live;
        this.release = release;
    }

    /**
     * The session's id, under which it is saved.
     *
     * @return the id
     */
    public String id() {
        return live.id;
    }

    /**
     * The agent answering in this session.
     *
     * @return its name
     */
    public String entryAgent() {
        return live.entryAgent;
    }

    /**
     * The conversation so far, system prompt included; the same chat for every handle of the
     * session.
     *
     * @return the chat (thread-safe; read it, do not append to it while a turn runs)
     */
    public Chat chat() {
        return live.conversation.chat();
    }

    /**
     * The tokens the session used so far, over every turn and every engine that held it (when
     * it is saved), delegated agents included.
     *
     * @return the totals
     */
    public Usage usage() {
        return live.usage();
    }

    /**
     * What the session's model calls cost so far, by the engine's price table, over every turn
     * and every engine that held it (when it is saved), delegated agents included. Tokens of
     * models the table does not price are counted in {@link Cost#unpricedTokens()}.
     *
     * @return the cost
     */
    public Cost cost() {
        return live.cost();
    }

    /**
     * Tells a listener of the events of the turns sent through this handle, synchronously, on the
     * threads the agents run on (delegated children included), and in order: for a view that
     * must show the events of a turn before the turn returns. The engine's
     * {@link Engine#events() bus} still gets every event.
     *
     * @param listener the listener; it should return quickly
     * @return this handle
     */
    public Session listen(AgentListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("Session.listen listener must not be null");
        }
        this.listener = this.listener.andThen(listener);
        return this;
    }

    AgentListener listener() {
        return listener;
    }

    /**
     * Sends a user message and waits for the entry agent's answer. Waits behind turns already
     * queued.
     *
     * @param text what the user says
     * @return the turn: the agent's final answer, the tokens the turn used, how long it took
     * @throws ShellyException the agent's failure (a model error, an agent error)
     * @throws CancellationException when the turn was cancelled or the waiting thread interrupted
     *     (the turn is then cancelled too)
     * @throws IllegalStateException when the handle or the session is closed
     */
    public Turn send(String text) {
        return send(text, RunValues.EMPTY);
    }

    /**
     * Sends a user message with the application's own values for this turn (a tenant, a user, a
     * request id), and waits for the entry agent's answer. The turn runs in a fresh
     * {@link dev.shelly.agent.RunContext} with the session id and these values, which every tool
     * of the turn (delegated agents' included) reads from its {@code ToolContext}.
     *
     * @param text what the user says
     * @param values the turn's run values
     * @return the turn: the agent's final answer, the tokens the turn used and their cost, how long it took
     * @throws ShellyException the agent's failure (a model error, an agent error)
     * @throws CancellationException when the turn was cancelled or the waiting thread interrupted
     *     (the turn is then cancelled too)
     * @throws IllegalStateException when the handle or the session is closed
     */
    public Turn send(String text, RunValues values) {
        return await(submit(text, values));
    }

    private Turn await(Future<Turn> turn) {
        try {
            return turn.get();
        } catch (InterruptedException e) {
            turn.cancel(true);
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while waiting for the answer in session " + live.id);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new ShellyException("session " + live.id + ": the turn failed: " + cause, cause);
        }
    }

    /**
     * Queues a user message; the turn runs after those queued before it, through any handle.
     *
     * @param text what the user says
     * @return the turn to come; cancelling it interrupts the turn
     * @throws IllegalStateException when the handle or the session is closed
     */
    public Future<Turn> submit(String text) {
        return submit(text, RunValues.EMPTY);
    }

    /**
     * Queues a user message with the turn's run values; the turn runs after those queued before
     * it, through any handle.
     *
     * @param text what the user says
     * @param values the turn's run values (see {@link #send(String, RunValues)})
     * @return the turn to come; cancelling it interrupts the turn
     * @throws IllegalStateException when the handle or the session is closed
     */
    public Future<Turn> submit(String text, RunValues values) {
        if (values == null) {
            throw new IllegalArgumentException("the run values sent to session " + live.id + " must not be null");
        }
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("the text sent to session " + live.id + " must not be null or blank");
        }
        return queue(text, values);
    }

    private Future<Turn> queue(String text, RunValues values) {
        if (closed.get()) {
            throw new IllegalStateException("session " + live.id + " is closed");
        }
        FutureTask<Turn> turn = new FutureTask<>(() -> live.runTurn(this, text, values)) {
            @Override
            protected void done() {
                pending.remove(this);
                live.pending.remove(this);
            }
        };
        pending.add(turn);
        live.pending.add(turn);
        try {
            live.execute(turn);
        } catch (RejectedExecutionException e) {
            pending.remove(turn);
            live.pending.remove(turn);
            throw new IllegalStateException("session " + live.id + " is closed");
        }
        return turn;
    }

    /**
     * Cancels the running turn and every queued one that were sent through this handle, and ends
     * the session's paused turn, if it has one: every call that waits for a decision (or did not
     * run) is answered {@code tool 'x' was not run: the session was cancelled while the call waited
     * for a decision}, and the session is saved. The next message starts a new turn.
     */
    public void cancel() {
        cancelTurns();
        if (!live.closed() && live.paused()) {
            live.cancelPaused("the session was cancelled while the call waited for a decision");
        }
    }

    private void cancelTurns() {
        for (Future<?> f : pending.toArray(Future[]::new)) {
            f.cancel(true);
        }
    }

    /**
     * The runs of the turn running now, or of the last turn: the entry agent's run and every run
     * started under it (delegated children, theirs, agents used as tools), in the order they
     * started, each naming the run it started under, so that they form a tree. A service shows
     * them, and {@linkplain #cancel(String) cancels} one, while the turn runs.
     *
     * @return the runs; empty before the first turn of this engine's hold on the session
     */
    public List<RunInfo> runs() {
        return live.runs.list();
    }

    /**
     * Cancels one run of the running turn and the runs below it, and no other. The run stops at
     * its next blocking point (a model call in flight is abandoned, a tool call is interrupted),
     * and every call it and its children had open is answered with an error result. When it is
     * a delegated child, its parent's {@code delegate} call reads {@code agent 'x' was cancelled}
     * for that task and goes on, its sibling tasks too; when it is the entry agent's run, the
     * turn ends cancelled, as {@link #cancel()} ends it. The session's journal records the cancel
     * before it takes effect, so a turn a crash cuts short and that is taken up again does not
     * run that run on. A run of a paused turn cancels the paused turn, as {@link #cancel()} does.
     *
     * @param runId the {@linkplain RunInfo#runId() run}
     * @return true when the run was running, or waiting for a decision, and is now cancelled;
     *     false when it had ended
     * @throws IllegalArgumentException naming the runs of the turn when none has that id
     * @throws IllegalStateException when the session is closed
     */
    public boolean cancel(String runId) {
        if (runId == null || runId.isBlank()) {
            throw new IllegalArgumentException("Session.cancel runId must not be null or blank");
        }
        if (live.closed()) {
            throw new IllegalStateException("session " + live.id + " is closed");
        }
        return live.cancelRun(runId);
    }

    /**
     * One run of a session's turn.
     *
     * @param runId the run's id (the same in every process that takes the turn up again)
     * @param agent the agent that runs
     * @param parentRunId the run it started under, or null for the entry agent's run
     * @param state where it is
     * @param usage the tokens it used so far, its children's included
     * @param startedAt when it started
     */
    public record RunInfo(String runId, String agent, String parentRunId, State state, Usage usage,
            Instant startedAt) {

        /** Where a run is. */
        public enum State {
            /** It runs. */
            RUNNING,
            /** Its turn waits for a decision about one of its calls, or one of its children's. */
            PAUSED,
            /** It answered. */
            FINISHED,
            /** It failed. */
            FAILED,
            /** It was cancelled: by itself, with its turn, or with a run above it. */
            CANCELLED
        }
    }

    /**
     * Whether the session's turn is paused: for a decision, or because a crash cut it short.
     *
     * @return true when tool calls wait for a decision, or a turn waits to be taken up
     */
    public boolean paused() {
        return live.paused();
    }

    /**
     * The tool calls the paused turn waits for, delegated children's included; answered ones are
     * listed until {@link #proceed} runs them. After a restart, {@link Engine#resume} shows the
     * same calls.
     *
     * <p><b>A turn a crash cut short.</b> When the process holding the session stopped in the
     * middle of a turn, {@link Engine#resume} takes the turn up from the session's journal: it
     * lists one {@link PendingCall.Kind#INTERRUPTED} entry per tool call that had started without
     * a recorded result and whose tool is not idempotent (its outcome is unknown), or, when no
     * call was running, one entry for the turn itself (id {@code "turn"}, no call). Calls that
     * waited for a decision are listed until they are answered; answered entries are not listed.
     * See {@link #proceed()}.
     *
     * @return the calls, empty when the session is not paused
     */
    public List<PendingCall> pending() {
        return live.pending();
    }

    /**
     * Decides about a waiting call, and saves the session with the answer (so it survives a
     * restart). An "always" answer is remembered at once: for this session, or for the project
     * (in {@code .shelly/permissions.json}).
     *
     * @param id the {@linkplain PendingCall#id() id} of a waiting call
     * @param answer approve, deny (with a reason the model reads), edit, or, for a question, reply
     * @throws IllegalArgumentException naming the waiting calls when none has that id, or when the
     *     answer does not fit the call
     * @throws IllegalStateException when the call was answered already or the session is closed
     */
    public void answer(String id, Answer answer) {
        if (live.closed()) {
            throw new IllegalStateException("session " + live.id + " is closed");
        }
        live.answer(id, answer);
    }

    /**
     * Goes on with the paused turn once its calls are answered, and waits for it: answered calls
     * run (or are refused), every call of the turn gets its result in call order, and the agent
     * goes on to its answer, or pauses again for calls still unanswered or newly asked.
     *
     * <p>For a turn a crash cut short, the turn goes on from its last recorded step: a model
     * response the journal holds is not asked for again, a tool call with a recorded result does
     * not run again, and a call that had started without a result runs again only when its tool
     * is idempotent or its entry was answered approve; otherwise the model reads {@code the
     * process stopped while tool 'x' was running (call c); whether it took effect is unknown}.
     * A {@code delegate} call whose children ran goes on with them, each from its own recorded
     * steps. The turn keeps its run ids, so a tool's {@code ToolContext.idempotencyKey()} is the
     * one it had before the crash.
     *
     * @return the turn: answered, or paused again
     * @throws IllegalStateException when the session waits for no decision, or is closed, or a
     *     call a crash cut short waits for a person's answer (its agent's tool policy asks about
     *     its tool)
     * @throws CancellationException when the turn was cancelled
     */
    public Turn proceed() {
        return await(submitProceed());
    }

    /**
     * Queues going on with the paused turn; see {@link #proceed()}.
     *
     * @return the turn to come
     * @throws IllegalStateException when the session waits for no decision, or is closed
     */
    public Future<Turn> submitProceed() {
        if (!live.paused()) {
            throw new IllegalStateException("session " + live.id + " waits for no decision; send a message instead");
        }
        List<PendingCall> asked = live.asked();
        if (!asked.isEmpty()) {
            throw new IllegalStateException("session " + live.id + " waits for a person's answer on "
                    + String.join(", ", asked.stream().map(PendingCall::id).toList()) + ", which a crash cut short: "
                    + "approve runs a call again, deny tells the model its outcome is unknown");
        }
        return queue(null, RunValues.EMPTY);
    }

    /**
     * Saves the conversation now; a no-op when the engine saves no sessions, and while the
     * session's journal holds a turn that is running or that a crash cut short (the journal
     * keeps its steps, and the turn saves when it ends). Saves from many threads are ordered: an
     * older snapshot never replaces a newer one.
     *
     * @throws ShellyException naming the session when it cannot be written
     * @throws IllegalStateException when the session is closed
     */
    public void save() {
        if (live.closed()) {
            throw new IllegalStateException("session " + live.id + " is closed");
        }
        live.saveNow();
    }

    /**
     * Cancels this handle's running and queued turns and lets the handle go (a paused turn stays
     * paused, saved for a later {@link Engine#resume}); the engine lets the
     * session go when its last handle closes. Closing twice is harmless.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            cancelTurns();
            release.run();
        }
    }

    @Override
    public String toString() {
        return "Session[" + live.id + ", agent=" + live.entryAgent + ", " + live.conversation.chat().size() + " messages]";
    }

    /**
     * A saved session at a glance, read without opening it ({@link Engine#sessionSummaries()}),
     * so that listing sessions neither waits for nor disturbs another engine or process that
     * holds one.
     *
     * @param id the session's id
     * @param agent the agent that answers in it
     * @param created when it began
     * @param lastUsed when it was last saved: after its last turn
     * @param turns how many messages the person sent in it
     * @param usage the tokens its model calls used, delegated agents' included
     * @param cost what they cost
     * @param paused whether its last turn waits for a decision
     */
    public record Summary(String id, String agent, Instant created, Instant lastUsed, int turns, Usage usage, Cost cost,
            boolean paused) {

        /** The summary of a saved record. */
        static Summary of(SessionRecord saved) {
            int turns = 0;
            for (Message m : saved.messages()) {
                if (m.role() == Role.USER && !m.text().isBlank()) {
                    turns++;
                }
            }
            return new Summary(saved.id(), saved.entryAgent(), saved.created(), saved.updated(), turns, saved.usage(),
                    saved.cost(), !saved.approvals().frames().isEmpty());
        }
    }
}
