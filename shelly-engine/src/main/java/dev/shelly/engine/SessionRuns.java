package dev.shelly.engine;

import dev.shelly.agent.RunContext;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.chats.Message;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Predicate;
import tools.jackson.databind.json.JsonMapper;

/**
 * The runs of a session's turn, running now or last, and the cancelling of one of them: a link
 * of every turn's chain (inherited by delegated children, so it sees every run of the turn start
 * and end, on the run's thread).
 *
 * <p>A run's state changes under the same lock a cancel holds, so a run is cancelled, and its
 * cancel journalled, only while it has not ended.
 */
final class SessionRuns implements RunInterceptor {
    private static final JournalEntries ENTRIES = new JournalEntries(JsonMapper.builder().build());

    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private Map<String, Tracked> runs = new LinkedHashMap<>(); // guarded by lock; replaced each turn
    /** The runs the journal of a turn a crash cut short says were cancelled before the crash. */
    private volatile Set<String> cancelledBefore = Set.of();

    /** One run: its context, where it stands, and its state (guarded by the lock). */
    private static final class Tracked {
        final RunContext context;
        final String agent;
        final Instant started;
        Session.RunInfo.State state = Session.RunInfo.State.RUNNING;

        Tracked(RunContext context, String agent, Instant started) {
            this.context = context;
            this.agent = agent;
            this.started = started;
        }
    }

    SessionRuns(Clock clock) {
        this.clock = clock;
    }

    /**
     * A turn starts: the runs of the last one are forgotten.
     *
     * @param cancelled for a turn a crash cut short, the runs cancelled before the crash; they end
     *     as cancelled runs do (a child's task reads that it was cancelled), not as failed ones
     */
    void turn(Set<String> cancelled) {
        lock.lock();
        try {
            runs = new LinkedHashMap<>();
            cancelledBefore = Set.copyOf(cancelled);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Message interceptRun(RunChain chain) {
        RunContext context = chain.context();
        String id = context.runId().orElseThrow();
        Tracked run = new Tracked(context, context.agent().orElse(chain.agent().name()), clock.instant());
        lock.lock();
        try {
            runs.put(id, run);
        } finally {
            lock.unlock();
        }
        Session.RunInfo.State end = Session.RunInfo.State.FAILED;
        try {
            Message reply = chain.proceed();
            end = chain.paused() ? Session.RunInfo.State.PAUSED : Session.RunInfo.State.FINISHED;
            return reply;
        } catch (RuntimeException | Error e) {
            if (e instanceof CancellationException && cancelledBefore.contains(id)) {
                context.cancel(); // as it was before the crash: its parent's task reads that it was cancelled
            }
            if (e instanceof CancellationException || context.cancelled()) {
                end = Session.RunInfo.State.CANCELLED;
            }
            throw e;
        } finally {
            lock.lock();
            try {
                run.state = end;
            } finally {
                lock.unlock();
            }
        }
    }

    /** The runs of the turn, in the order they started. */
    List<Session.RunInfo> list() {
        lock.lock();
        try {
            List<Session.RunInfo> list = new ArrayList<>(runs.size());
            runs.forEach((id, r) -> list.add(new Session.RunInfo(id, r.agent, r.context.parentRunId().orElse(null),
                    r.state, r.context.usage(), r.started)));
            return List.copyOf(list);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Cancels one run and those below it, while it runs; see {@link Session#cancel(String)}.
     *
     * @param sessionId the session, for messages
     * @param runId the run
     * @param journal appends an entry to the session's journal while it holds a turn, durably
     * @param paused ends the turn when the run waits for a decision; says whether it did
     * @return whether the run was running, or waiting, and is now cancelled
     * @throws IllegalArgumentException naming the turn's runs when none has that id
     */
    boolean cancel(String sessionId, String runId, Consumer<String> journal, Predicate<String> paused) {
        Session.RunInfo.State state;
        lock.lock();
        try {
            Tracked run = runs.get(runId);
            if (run == null) {
                throw new IllegalArgumentException("session " + sessionId + " has no run '" + runId + "'; the runs of "
                        + "its turn: " + (runs.isEmpty() ? "none" : String.join(", ", runs.keySet())));
            }
            state = run.state;
            if (state == Session.RunInfo.State.RUNNING) {
                journal.accept(ENTRIES.cancelled(runId)); // before the cancel takes effect, so a crash keeps it
                run.context.cancel();
                return true;
            }
        } finally {
            lock.unlock();
        }
        return state == Session.RunInfo.State.PAUSED
                && paused.test("run " + runId + " was cancelled while the turn waited for a decision");
    }
}
