package dev.shelly.engine;

import dev.shelly.agent.Answer;
import dev.shelly.agent.Approvals;
import dev.shelly.agent.PendingCall;
import dev.shelly.agent.ToolPolicy;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolCall;
import dev.shelly.storage.spi.SessionStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * A session's journal, as its live session uses it: whether the store keeps one, the turn a crash
 * cut short (read when the session was resumed) with the calls whose outcome is unknown and the
 * answers given to them, and the entries a turn's start, end and decisions add.
 *
 * <p>Thread-safe: answers come from any handle's thread while the turn thread runs.
 */
final class SessionJournal {
    private static final Logger LOG = LoggerFactory.getLogger(Session.class);
    /** The id of the {@link PendingCall.Kind#INTERRUPTED} entry of a turn that had no call running. */
    static final String TURN = "turn";
    private static final JournalEntries ENTRIES = new JournalEntries(JsonMapper.builder().build());

    private final String id;
    /** The lease to append to, or null when the store keeps no journal. */
    private final SessionStore.Lease lease;
    private final ReentrantLock lock = new ReentrantLock();
    private Interrupted interrupted; // guarded by lock
    /** Whether entries were appended since the last save that compacted them. */
    private volatile boolean dirty;

    /**
     * The turn a crash cut short.
     *
     * @param journal what its journal recorded
     * @param entries its {@link PendingCall.Kind#INTERRUPTED} entries: one per call started
     *     without a result whose tool is not idempotent, or one for the turn
     * @param answers the answers given to them, by pending id
     */
    private record Interrupted(Journal journal, List<PendingCall> entries, Map<String, Answer> answers) {}

    private SessionJournal(String id, SessionStore.Lease lease) {
        this.id = id;
        this.lease = lease;
    }

    /**
     * The journal of a session held by a lease: none when there is no lease or its store keeps no
     * journal.
     *
     * @param id the session
     * @param lease its lease, or null when the engine saves no sessions
     * @return the journal
     */
    static SessionJournal of(String id, SessionStore.Lease lease) {
        if (lease == null) {
            return new SessionJournal(id, null);
        }
        try {
            lease.journal();
            return new SessionJournal(id, lease);
        } catch (UnsupportedOperationException e) {
            LOG.info("session {}: its store keeps no journal, so a turn a crash cuts short starts over from the last "
                    + "save", id);
            return new SessionJournal(id, null);
        }
    }

    /**
     * Takes up the journal a resumed session's store holds: the turn a crash cut short, if any,
     * and the answers given while it waited (those to waiting calls go to the approvals).
     *
     * @param approvals the session's approvals, restored from the record
     * @param clock when the unknown outcomes are noticed
     * @return the entry agent's turn's journal, or null when it holds no turn
     */
    Journal resumeFrom(Approvals approvals, Clock clock) {
        if (lease == null) {
            return null;
        }
        List<String> entries = lease.journal();
        if (entries.isEmpty()) {
            return null;
        }
        dirty = true;
        Journal journal = Journal.read(id, entries, ENTRIES);
        if (journal == null) {
            return null;
        }
        List<PendingCall> unknown = new ArrayList<>();
        for (Journal.Started s : journal.inFlight()) {
            if (s.idempotent()) {
                continue;
            }
            String path = journal.path(s.run());
            String agent = journal.agent(s.run());
            ToolCall call = journal.call(s.run(), s.call());
            if (call == null) {
                // Made in the reply a pause ended with, which the record holds: as it ran.
                call = new ToolCall(s.call(), s.tool(), s.arguments());
            }
            unknown.add(new PendingCall(path.isEmpty() ? s.call() : path + "/" + s.call(), agent == null ? "?" : agent,
                    call, PendingCall.Kind.INTERRUPTED, Replay.unknown(s.tool(), s.call()), clock.instant()));
        }
        if (unknown.isEmpty()) {
            String agent = journal.agent(journal.topRun());
            unknown.add(new PendingCall(TURN, agent == null ? "?" : agent, null, PendingCall.Kind.INTERRUPTED,
                    "the process stopped during the turn; proceeding goes on from its last recorded step", clock.instant()));
        }
        Map<String, Answer> answers = new LinkedHashMap<>();
        journal.decisions.forEach((pending, answer) -> {
            if (find(unknown, pending) != null) {
                answers.put(pending, answer);
                return;
            }
            try {
                approvals.answer(pending, answer);
            } catch (IllegalArgumentException | IllegalStateException e) {
                LOG.debug("session {}: the journal's answer to {} no longer applies: {}", id, pending, e.getMessage());
            }
        });
        lock.lock();
        try {
            interrupted = new Interrupted(journal, List.copyOf(unknown), answers);
        } finally {
            lock.unlock();
        }
        LOG.info("session {}: turn {} was cut short by a crash after {} journal entries; {}", id, journal.turnId,
                journal.size, describe(unknown));
        return journal;
    }

    private static String describe(List<PendingCall> unknown) {
        if (unknown.size() == 1 && unknown.getFirst().call() == null) {
            return "no call was running";
        }
        List<String> ids = new ArrayList<>();
        unknown.forEach(p -> ids.add(p.id()));
        return "the outcome of " + String.join(", ", ids) + " is unknown";
    }

    private static PendingCall find(List<PendingCall> entries, String pending) {
        for (PendingCall p : entries) {
            if (p.id().equals(pending)) {
                return p;
            }
        }
        return null;
    }

    /** Whether the store keeps a journal for the session. */
    boolean enabled() {
        return lease != null;
    }

    /** Whether entries wait for a save that compacts them (a turn's, or a failed save's). */
    boolean dirty() {
        return dirty;
    }

    /** Whether a turn a crash cut short waits to be taken up. */
    boolean interrupted() {
        lock.lock();
        try {
            return interrupted != null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Starts a fresh turn's journal: the turn's entry first, then its link.
     *
     * @param turn the version of the record the turn follows
     * @param turnId the turn's id
     * @param input what the turn appends before the loop (empty when it goes on after decisions)
     * @return the link that records the turn's steps
     */
    TurnJournal begin(long turn, String turnId, List<Message> input) {
        dirty = true;
        lease.append(ENTRIES.turn(turn, turnId, input));
        return new TurnJournal(lease, ENTRIES, null);
    }

    /** The input of the turn a crash cut short, as its journal recorded it. */
    List<Message> input() {
        lock.lock();
        try {
            return interrupted.journal().input;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The link that takes up the turn a crash cut short: its recorded steps are answered from the
     * journal, calls started without a result run again (idempotent tools, calls approved again,
     * {@code delegate} calls whose children go on from their own steps) or are answered with an
     * unknown outcome, and the turn goes on live, or ends at its first live step.
     *
     * @param stop why the turn ends at its first live step, or null to go on
     * @return the link
     */
    TurnJournal replay(String stop) {
        lock.lock();
        try {
            Journal journal = interrupted.journal();
            String why = stop != null ? stop
                    : interrupted.answers().get(TURN) instanceof Answer.Deny d ? "the interrupted turn was ended: "
                            + d.reason() : null;
            Map<String, Replay.Verdict> verdicts = new HashMap<>();
            for (Journal.Started s : journal.inFlight()) {
                PendingCall entry = find(interrupted.entries(), pendingId(journal, s));
                Answer answer = entry == null ? null : interrupted.answers().get(entry.id());
                boolean again = why == null && (s.idempotent() || answer instanceof Answer.Approve);
                verdicts.put(Journal.key(s.run(), s.call()), again ? Replay.Verdict.RERUN : Replay.Verdict.UNKNOWN);
            }
            return new TurnJournal(lease, ENTRIES, new Replay(journal, verdicts, why));
        } finally {
            lock.unlock();
        }
    }

    private static String pendingId(Journal journal, Journal.Started s) {
        String path = journal.path(s.run());
        return path.isEmpty() ? s.call() : path + "/" + s.call();
    }

    /** Records the end of a turn, just before the save that compacts it; a failure is only logged. */
    void end() {
        try {
            lease.append(ENTRIES.end());
        } catch (RuntimeException e) {
            LOG.warn("session {}: cannot record the end of its turn: {}", id, e.toString());
        }
    }

    /** The save after a turn compacted its journal: no turn waits any more. */
    void saved() {
        dirty = false;
        lock.lock();
        try {
            interrupted = null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Answers an entry of the turn a crash cut short, and records the answer.
     *
     * @return false when no such entry waits (the answer is for the approvals)
     * @throws IllegalArgumentException when the answer is neither approve nor deny
     * @throws IllegalStateException when the entry was answered already
     */
    boolean answer(String pending, Answer answer) {
        lock.lock();
        try {
            if (interrupted == null || find(interrupted.entries(), pending) == null) {
                return false;
            }
            if (!(answer instanceof Answer.Approve) && !(answer instanceof Answer.Deny)) {
                throw new IllegalArgumentException("call '" + pending + "' of session " + id + " was interrupted by a "
                        + "crash: approve runs it again, deny reports its outcome as unknown; other answers do not fit");
            }
            if (interrupted.answers().containsKey(pending)) {
                throw new IllegalStateException("call '" + pending + "' of session " + id + " was answered already");
            }
            decision(pending, answer);
            interrupted.answers().put(pending, answer);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Records an answer given while the journal is open, so that it outlives a crash. */
    void decision(String pending, Answer answer) {
        dirty = true;
        lease.append(ENTRIES.decision(pending, answer));
    }

    /**
     * What the session waits for: with a turn a crash cut short, the waiting calls not answered
     * yet and its own unanswered entries; else the approvals' pending calls.
     */
    List<PendingCall> pending(Approvals approvals) {
        lock.lock();
        try {
            if (interrupted == null) {
                return approvals.pending();
            }
            List<PendingCall> all = new ArrayList<>(approvals.unanswered());
            for (PendingCall p : interrupted.entries()) {
                if (!interrupted.answers().containsKey(p.id())) {
                    all.add(p);
                }
            }
            return all;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The entries of the turn a crash cut short that a person must answer before it goes on: calls
     * not answered whose tool the agent's policy asks a person about.
     */
    List<PendingCall> asked(Approvals approvals) {
        lock.lock();
        try {
            List<PendingCall> asked = new ArrayList<>();
            if (interrupted != null) {
                for (PendingCall p : interrupted.entries()) {
                    if (p.call() != null && !interrupted.answers().containsKey(p.id())
                            && approvals.policy(p.agent()).decide(p.call().name()) == ToolPolicy.Permission.ASK) {
                        asked.add(p);
                    }
                }
            }
            return asked;
        } finally {
            lock.unlock();
        }
    }
}
