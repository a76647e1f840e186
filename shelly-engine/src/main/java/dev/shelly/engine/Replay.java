package dev.shelly.engine;

import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelResponse;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The taking up of a turn a crash cut short: its journal, read back step by step as the loop
 * runs the turn again from the record saved before it. A run gets its recorded id, a model call
 * its recorded response and a tool call its recorded result; a call recorded as started without
 * a result runs again or is answered with an unknown outcome, as decided before the replay; the
 * first step the journal does not hold is taken live, unless the replay ends the turn there.
 *
 * <p>Thread-safe: the runs of a turn and their tool calls go on concurrently.
 */
final class Replay {
    /** What becomes of a call recorded as started without a result. */
    enum Verdict {
        /** It runs again, with the same idempotency key. */
        RERUN,
        /** It does not run; the model reads that its outcome is unknown. */
        UNKNOWN
    }

    /**
     * Ends a run at its first step the journal does not hold: the turn is to end where the
     * journal ends, or the run was cancelled before the crash.
     */
    static final class Ended extends CancellationException {
        private static final long serialVersionUID = 1L;

        Ended(String why) {
            super(why);
        }
    }

    final Journal journal;
    private final Map<String, Verdict> verdicts;
    /** Why the replay ends the turn at its first live step, or null when the turn goes on. */
    private final String stop;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Integer> cursors = new HashMap<>();
    private final Set<String> given = new HashSet<>();
    /** Every run of the turn, recorded or live, and the run it started under. */
    private final Map<String, String> parents = new HashMap<>();

    /**
     * A replay.
     *
     * @param journal what the journal recorded
     * @param verdicts what becomes of each call started without a result, by {@link Journal#key}
     * @param stop why the turn ends at its first live step, or null to go on live
     */
    Replay(Journal journal, Map<String, Verdict> verdicts, String stop) {
        this.journal = journal;
        this.verdicts = Map.copyOf(verdicts);
        this.stop = stop;
        for (Journal.Child c : journal.children) {
            parents.put(c.run(), c.parent());
        }
    }

    /**
     * The text the model reads for a call whose outcome is unknown.
     *
     * @param tool the tool's name
     * @param call the call's id
     * @return the text
     */
    static String unknown(String tool, String call) {
        return "the process stopped while tool '" + tool + "' was running (call " + call
                + "); whether it took effect is unknown";
    }

    static ToolResult unknownResult(String tool, String call) {
        return ToolResult.error(call, unknown(tool, call));
    }

    /**
     * The recorded id of a run about to start, once per recorded run: the top run's, or the
     * child's the journal recorded under the same parent, at the same path, of the same agent.
     *
     * @return the id, or null for a run the journal does not hold
     */
    String runId(String parent, String path, String agent) {
        lock.lock();
        try {
            String id = null;
            if (parent == null && path.isEmpty()) {
                String top = journal.topRun();
                String recorded = top == null ? null : journal.agent(top);
                if (top != null && !given.contains(top) && (recorded == null || agent.equals(recorded))) {
                    id = top;
                }
            } else {
                for (Journal.Child c : journal.children) {
                    if (!given.contains(c.run()) && parent != null && parent.equals(c.parent()) && path.equals(c.path())
                            && agent.equals(c.agent())) {
                        id = c.run();
                        break;
                    }
                }
            }
            if (id != null) {
                given.add(id);
            }
            return id;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the journal holds a run's start under its parent. */
    boolean recorded(String run) {
        return journal.child(run) != null;
    }

    /** Notes a run of the turn and its parent, so that a cancelled ancestor stops it. */
    void started(String run, String parent) {
        lock.lock();
        try {
            parents.putIfAbsent(run, parent);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The next recorded response of a run, once.
     *
     * @return the response, or null when the journal holds no more of the run's
     */
    ModelResponse next(String run) {
        lock.lock();
        try {
            int at = cursors.getOrDefault(run, 0);
            var models = journal.models(run);
            if (at >= models.size()) {
                return null;
            }
            cursors.put(run, at + 1);
            return models.get(at).response();
        } finally {
            lock.unlock();
        }
    }

    /**
     * What becomes of a call recorded as started without a result: a {@value Journal#DELEGATE}
     * call runs again (its children go on from their own recorded steps), any other as decided.
     */
    Verdict verdict(String run, String call) {
        Journal.Started started = journal.started(run, call);
        if (started != null && started.tool().equals(Journal.DELEGATE)) {
            return Verdict.RERUN;
        }
        return verdicts.getOrDefault(Journal.key(run, call), Verdict.UNKNOWN);
    }

    /**
     * Why a run takes no live step, or null when it may: the replay ends the turn, or the run or
     * a run above it was cancelled.
     */
    String stopped(String run) {
        if (stop != null) {
            return stop;
        }
        lock.lock();
        try {
            for (String r = run; r != null; r = parents.get(r)) {
                if (journal.cancelled.contains(r)) {
                    return "run " + r + " was cancelled";
                }
            }
            return null;
        } finally {
            lock.unlock();
        }
    }
}
