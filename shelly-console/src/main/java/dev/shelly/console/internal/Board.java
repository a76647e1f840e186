package dev.shelly.console.internal;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.PendingCall;
import dev.shelly.agent.RunPausedException;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.modeladapter.Usage;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the console knows of each session from the engine's events: the run tree of its current
 * turn (runs, their model and tool calls, retries and fallbacks, compactions), the decisions it waits for, its tokens
 * and cost per turn, and when it was last active. Each event it takes becomes one change for the
 * page, or none. Not thread-safe: the {@link Hub} calls it under its lock.
 *
 * <p>It is bounded: a session keeps at most {@link #SESSION_CHARS} characters of calls (its
 * oldest model calls, tool calls, retries and compactions go first), and the board as a whole at
 * most {@link #SESSIONS} sessions and {@link #BOARD_CHARS} characters, dropping the sessions
 * that were active least recently (one that waits for a person last). A dropped session is still
 * listed from the engine; only the run tree of its turn is no longer shown.
 */
final class Board {
    /** Turns kept per session for the chart. */
    static final int TURNS = 50;
    /** Calls kept per run; a run with more keeps its last ones. */
    static final int CALLS = 500;
    /** Sessions kept, the most recently active ones. */
    static final int SESSIONS = 1_000;
    /** Characters of calls and runs kept per session, about twice as many bytes. */
    static final long SESSION_CHARS = 4L << 20;
    /** Characters kept over all sessions. */
    static final long BOARD_CHARS = 32L << 20;
    /** What a run counts for besides its calls. */
    private static final long RUN_CHARS = 256;

    private final ModelTable prices;
    private final Clock clock;
    private final int maxSessions;
    private final long sessionChars;
    private final long boardChars;
    /** By activity: the least recently active session first. */
    private final Map<String, SessionView> sessions = new LinkedHashMap<>();
    private long chars;

    Board(ModelTable prices, Clock clock) {
        this(prices, clock, SESSIONS, SESSION_CHARS, BOARD_CHARS);
    }

    Board(ModelTable prices, Clock clock, int maxSessions, long sessionChars, long boardChars) {
        this.prices = prices;
        this.clock = clock;
        this.maxSessions = maxSessions;
        this.sessionChars = sessionChars;
        this.boardChars = boardChars;
    }

    /** A call, retry or compaction kept in a run, in the order the session took them. */
    private record Kept(RunView run, ObjectNode node) {}

    /** One session as the events showed it. */
    static final class SessionView {
        final String id;
        String agent;
        Instant lastActivity;
        final Map<String, RunView> runs = new LinkedHashMap<>();
        /** The runs that took a paused run up again, by id, and the run (its node) they continue. */
        final Map<String, String> continued = new HashMap<>();
        final Map<String, ObjectNode> pending = new LinkedHashMap<>();
        final List<ObjectNode> turns = new ArrayList<>();
        int turnCount;
        boolean paused;
        String root;
        /** The characters each kept item counts for; an item no longer kept is not in it. */
        final Map<ObjectNode, Long> weights = new IdentityHashMap<>();
        /** The kept items, oldest first; may still name some that are gone. */
        final ArrayDeque<Kept> order = new ArrayDeque<>();
        long chars;

        SessionView(String id) {
            this.id = id;
        }

        String node(String runId) {
            return runId == null ? null : continued.getOrDefault(runId, runId);
        }

        ObjectNode currentTurn() {
            return turns.isEmpty() ? null : turns.getLast();
        }
    }

    /** One run of the current turn. */
    static final class RunView {
        final String id;
        final String agent;
        final String parent;
        final int depth;
        final Instant started;
        /** The run that goes on in this node now: its own, or the one that took it up after a pause. */
        String current;
        String state = "running";
        long tookMs = -1;
        Usage usage = Usage.ZERO;
        Cost cost = Cost.ZERO;
        String error;
        final List<ObjectNode> models = new ArrayList<>();
        final Map<String, ObjectNode> tools = new LinkedHashMap<>();
        final List<ObjectNode> compactions = new ArrayList<>();
        final List<ObjectNode> retries = new ArrayList<>();

        RunView(String id, String agent, String parent, int depth, Instant started) {
            this.id = id;
            this.agent = agent;
            this.parent = parent;
            this.depth = depth;
            this.started = started;
            this.current = id;
        }

        ObjectNode json() {
            ObjectNode r = Views.object().put("id", id).put("runId", current).put("agent", agent).put("parent", parent).put("depth", depth)
                    .put("state", state).put("started", Views.time(started)).put("tookMs", tookMs);
            r.set("usage", Views.usage(usage));
            r.set("cost", Views.cost(cost));
            r.put("error", error);
            ArrayNode m = r.putArray("models");
            models.forEach(m::add);
            ArrayNode t = r.putArray("tools");
            tools.values().forEach(t::add);
            ArrayNode c = r.putArray("compactions");
            compactions.forEach(c::add);
            ArrayNode x = r.putArray("retries");
            retries.forEach(x::add);
            return r;
        }
    }

    /**
     * Takes an event into the board.
     *
     * @return the change for the page, or null when the page shows nothing of it
     */
    ObjectNode apply(AgentEvent event) {
        AgentEvent.Source source = event.source();
        if (source == null || source.sessionId() == null || source.runId() == null) {
            return null;
        }
        SessionView s = sessions.remove(source.sessionId());
        if (s == null) {
            s = new SessionView(source.sessionId());
        }
        sessions.put(s.id, s);
        Instant now = clock.instant();
        s.lastActivity = now;
        if (event instanceof AgentEvent.AgentStarted && !s.runs.containsKey(source.runId())) {
            takeUp(s, source);
        }
        String runId = s.node(source.runId());
        ObjectNode change = Views.object().put("session", s.id).put("run", runId).put("at", now.toString());
        switch (event) {
            case AgentEvent.AgentStarted e -> {
                boolean top = source.parentRunId() == null;
                if (top && !s.runs.containsKey(runId) && !s.paused) {
                    newTurn(s, source.agent());
                    change.put("newTurn", true).put("turn", s.turnCount);
                }
                if (top) {
                    s.root = runId;
                    s.paused = false;
                }
                RunView run = s.runs.get(runId);
                if (run == null) {
                    run = new RunView(runId, source.agent(), s.node(source.parentRunId()), source.depth(), now);
                    s.runs.put(runId, run);
                    grow(s, RUN_CHARS);
                } else {
                    run.current = source.runId();
                    run.state = "running";
                }
                change.put("type", "run").set("node", run.json());
            }
            case AgentEvent.AgentFinished e -> {
                RunView run = run(s, source, now);
                run.state = "done";
                run.tookMs = e.took().toMillis();
                run.usage = e.usage();
                run.cost = e.cost();
                change.put("type", "run").set("node", run.json());
                if (source.parentRunId() == null) {
                    s.pending.clear();
                    change.set("summary", summary(s));
                }
            }
            case AgentEvent.AgentFailed e -> {
                RunView run = run(s, source, now);
                boolean pausedRun = e.error() instanceof RunPausedException;
                run.state = pausedRun ? "waiting" : e.cancelled() ? "cancelled" : "failed";
                run.tookMs = e.took().toMillis();
                run.error = pausedRun || e.error() == null ? null : String.valueOf(e.error().getMessage());
                change.put("type", "run").set("node", run.json());
                if (source.parentRunId() == null) {
                    s.paused = pausedRun;
                    if (!pausedRun) {
                        s.pending.clear();
                    }
                    change.set("summary", summary(s));
                }
            }
            case AgentEvent.CompletionFinished e -> {
                RunView run = run(s, source, now);
                Usage used = e.usage();
                String model = e.response().model();
                Cost cost = model == null ? new Cost(java.math.BigDecimal.ZERO, used.totalTokens())
                        : prices.cost(model, used);
                ObjectNode call = Views.object().put("iteration", e.iteration()).put("model", model)
                        .put("tookMs", e.took().toMillis());
                call.set("usage", Views.usage(used));
                call.set("cost", Views.cost(cost));
                keep(s, run, run.models, call);
                addToTurn(s, used, cost);
                change.put("type", "model").set("call", call);
                change.set("turnPoint", s.currentTurn());
            }
            case AgentEvent.ToolCallStarted e -> {
                RunView run = run(s, source, now);
                ObjectNode call = Views.object().put("id", e.call().id()).put("name", e.call().name())
                        .put("arguments", Views.clip(e.call().arguments())).put("state", "running");
                putTool(s, run, call);
                change.put("type", "tool").set("call", call);
            }
            case AgentEvent.ToolCallFinished e -> {
                RunView run = run(s, source, now);
                ObjectNode call = Views.object().put("id", e.call().id()).put("name", e.call().name())
                        .put("arguments", Views.clip(e.call().arguments()))
                        .put("state", e.result().isError() ? "error" : "done").put("result", Views.clip(e.result().text()))
                        .put("tookMs", e.took().toMillis());
                putTool(s, run, call);
                s.pending.values().removeIf(p -> e.call().id().equals(p.path("callId").asString("")));
                change.put("type", "tool").set("call", call);
            }
            case AgentEvent.DecisionNeeded e -> {
                RunView run = run(s, source, now);
                ObjectNode p = pending(e.pending(), runId);
                s.pending.put(e.pending().id(), p);
                ObjectNode call = run.tools.get(e.pending().call().id());
                if (call == null) {
                    call = Views.object().put("id", e.pending().call().id()).put("name", e.pending().call().name())
                            .put("arguments", Views.clip(e.pending().call().arguments()));
                }
                call.put("state", "waiting");
                putTool(s, run, call);
                change.put("type", "decision").set("pending", p);
            }
            case AgentEvent.ContextCompacted e -> {
                RunView run = run(s, source, now);
                ObjectNode c = Views.object().put("strategy", e.strategy()).put("before", e.tokensBefore())
                        .put("after", e.tokensAfter()).put("iteration", e.iteration());
                keep(s, run, run.compactions, c);
                change.put("type", "compaction").set("compaction", c);
            }
            case AgentEvent.ContextTrimmed e -> {
                RunView run = run(s, source, now);
                ObjectNode c = Views.object().put("strategy", e.strategy()).put("before", e.tokensBefore())
                        .put("after", e.tokensAfter()).put("iteration", e.iteration());
                keep(s, run, run.compactions, c);
                change.put("type", "compaction").set("compaction", c);
            }
            case AgentEvent.ModelRetried e -> {
                RunView run = run(s, source, now);
                ObjectNode r = Views.object().put("kind", "retry").put("attempt", e.attempt())
                        .put("maxAttempts", e.maxAttempts()).put("error", Views.clip(e.error()))
                        .put("delayMs", e.delay() == null ? 0 : e.delay().toMillis());
                keep(s, run, run.retries, r);
                change.put("type", "retry").set("retry", r);
            }
            case AgentEvent.ModelFellBack e -> {
                RunView run = run(s, source, now);
                ObjectNode r = Views.object().put("kind", "fallback").put("from", e.from()).put("to", e.to())
                        .put("reason", e.reason());
                keep(s, run, run.retries, r);
                change.put("type", "retry").set("retry", r);
            }
            case AgentEvent.MessageAdded e -> {
                if (source.parentRunId() != null) {
                    return null;
                }
                change.put("type", "message").set("message", Views.message(e.message()));
            }
            default -> {
                return null;
            }
        }
        trim(s);
        return change;
    }

    /** A decision answered through the console: no longer offered. */
    ObjectNode decided(String session, String id) {
        SessionView s = sessions.get(session);
        if (s != null) {
            s.pending.remove(id);
        }
        return Views.object().put("type", "decided").put("session", session).put("id", id);
    }

    /**
     * A paused turn the console cancelled: its waiting runs are cancelled and nothing waits, so
     * the next run of the session starts a new turn instead of taking one of them up.
     */
    ObjectNode pausedTurnCancelled(String session) {
        SessionView s = sessions.get(session);
        if (s != null) {
            s.paused = false;
            s.pending.clear();
            for (RunView r : s.runs.values()) {
                if (r.state.equals("waiting") || r.state.equals("running")) {
                    r.state = "cancelled";
                }
            }
        }
        return Views.object().put("type", "cancelled").put("session", session);
    }

    private void newTurn(SessionView s, String agent) {
        s.runs.clear();
        s.continued.clear();
        s.pending.clear();
        s.weights.clear();
        s.order.clear();
        grow(s, -s.chars);
        s.turnCount++;
        if (s.agent == null) {
            s.agent = agent;
        }
        s.turns.add(Views.object().put("turn", s.turnCount).put("tokens", 0L).put("input", 0L).put("output", 0L)
                .put("usd", 0.0));
        if (s.turns.size() > TURNS) {
            s.turns.removeFirst();
        }
    }

    private static void addToTurn(SessionView s, Usage used, Cost cost) {
        ObjectNode t = s.currentTurn();
        if (t == null) {
            return;
        }
        t.put("tokens", t.path("tokens").asLong() + used.totalTokens());
        t.put("input", t.path("input").asLong() + used.totalInputTokens());
        t.put("output", t.path("output").asLong() + used.outputTokens());
        t.put("usd", t.path("usd").asDouble() + cost.usd().doubleValue());
    }

    private void putTool(SessionView s, RunView run, ObjectNode call) {
        ObjectNode before = run.tools.put(call.path("id").asString(""), call);
        if (before != call) {
            forget(s, before);
            remember(s, run, call);
        }
        if (run.tools.size() > CALLS) {
            Iterator<ObjectNode> oldest = run.tools.values().iterator();
            forget(s, oldest.next());
            oldest.remove();
        }
    }

    private void keep(SessionView s, RunView run, List<ObjectNode> list, ObjectNode item) {
        list.add(item);
        remember(s, run, item);
        if (list.size() > CALLS) {
            forget(s, list.removeFirst());
        }
    }

    private void remember(SessionView s, RunView run, ObjectNode item) {
        long weight = weight(item);
        s.weights.put(item, weight);
        s.order.addLast(new Kept(run, item));
        grow(s, weight);
        if (s.order.size() > 2 * s.weights.size() + 64) {
            s.order.removeIf(k -> !s.weights.containsKey(k.node()));
        }
    }

    private void forget(SessionView s, ObjectNode item) {
        Long weight = item == null ? null : s.weights.remove(item);
        if (weight != null) {
            grow(s, -weight);
        }
    }

    private void grow(SessionView s, long delta) {
        s.chars += delta;
        chars += delta;
    }

    /** Roughly the characters an item holds: its texts, and a little for the rest. */
    private static long weight(ObjectNode item) {
        long weight = 32;
        for (Map.Entry<String, tools.jackson.databind.JsonNode> e : item.properties()) {
            weight += e.getKey().length() + (e.getValue().isString() ? e.getValue().asString().length() : 8);
        }
        return weight;
    }

    /**
     * Keeps the session just changed within its characters, dropping its oldest items, and the
     * board within its sessions and characters, dropping the least recently active other sessions.
     */
    private void trim(SessionView s) {
        while (s.chars > sessionChars && !s.order.isEmpty()) {
            Kept oldest = s.order.removeFirst();
            if (s.weights.containsKey(oldest.node())) {
                RunView run = oldest.run();
                ObjectNode node = oldest.node();
                run.tools.values().removeIf(n -> n == node);
                run.models.removeIf(n -> n == node);
                run.compactions.removeIf(n -> n == node);
                run.retries.removeIf(n -> n == node);
                forget(s, node);
            }
        }
        while ((sessions.size() > maxSessions || chars > boardChars) && sessions.size() > 1) {
            SessionView gone = leastRecentlyActive(s);
            sessions.remove(gone.id);
            chars -= gone.chars;
        }
    }

    /** The session active least recently other than the one given, preferring one that waits for nobody. */
    private SessionView leastRecentlyActive(SessionView keep) {
        SessionView first = null;
        for (SessionView v : sessions.values()) {
            if (v == keep) {
                continue;
            }
            if (!v.paused) {
                return v;
            }
            if (first == null) {
                first = v;
            }
        }
        return first;
    }

    /** The characters the board keeps now. */
    long chars() {
        return chars;
    }

    /** The run of an event, made up when its start was not seen (the console started after it). */
    private RunView run(SessionView s, AgentEvent.Source source, Instant now) {
        RunView run = s.runs.get(s.node(source.runId()));
        if (run == null) {
            run = new RunView(s.node(source.runId()), source.agent(), s.node(source.parentRunId()), source.depth(), now);
            s.runs.put(run.id, run);
            grow(s, RUN_CHARS);
        }
        return run;
    }

    /**
     * A run that starts while its session's turn is paused takes up the waiting run of its agent
     * under the same parent: the tree keeps one node for both, which goes on with the new run.
     */
    private static void takeUp(SessionView s, AgentEvent.Source source) {
        if (!s.paused && source.parentRunId() == null) {
            return;
        }
        String parent = s.node(source.parentRunId());
        for (RunView r : s.runs.values()) {
            if (r.state.equals("waiting") && r.agent.equals(source.agent()) && java.util.Objects.equals(r.parent, parent)) {
                s.continued.put(source.runId(), r.id);
                return;
            }
        }
    }

    static ObjectNode pending(PendingCall p, String runId) {
        return Views.object().put("id", p.id()).put("agent", p.agent()).put("run", runId)
                .put("kind", p.kind().name().toLowerCase(java.util.Locale.ROOT))
                .put("tool", p.call() == null ? null : p.call().name())
                .put("callId", p.call() == null ? null : p.call().id())
                .put("arguments", p.call() == null ? null : Views.clip(p.call().arguments()))
                .put("reason", p.reason()).put("since", Views.time(p.since()));
    }

    /** What the events say of a session for its line in the list. */
    ObjectNode summary(SessionView s) {
        return Views.object().put("id", s.id).put("lastActivity", Views.time(s.lastActivity)).put("paused", s.paused)
                .put("waiting", s.pending.size());
    }

    /** The current turn of a session: its runs, what waits, its chart; null when no event named it. */
    ObjectNode detail(String session) {
        SessionView s = sessions.get(session);
        ObjectNode d = Views.object();
        ArrayNode runs = d.putArray("runs");
        ArrayNode pending = d.putArray("pending");
        ArrayNode turns = d.putArray("turns");
        if (s != null) {
            s.runs.values().forEach(r -> runs.add(r.json()));
            s.pending.values().forEach(pending::add);
            s.turns.forEach(t -> turns.add(t.deepCopy()));
            d.put("lastActivity", Views.time(s.lastActivity));
        }
        return d;
    }

    boolean knows(String session) {
        return sessions.containsKey(session);
    }

    Instant lastActivity(String session) {
        SessionView s = sessions.get(session);
        return s == null ? null : s.lastActivity;
    }
}
