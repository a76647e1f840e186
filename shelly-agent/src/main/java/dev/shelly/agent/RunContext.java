package dev.shelly.agent;

import dev.shelly.agent.internal.OutsideLoop;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.modeladapter.Usage;
import dev.shelly.tools.RunValues;
import dev.shelly.tools.ToolContext;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.Supplier;

/**
 * The context of a run: who runs (run id, agent, parent run and agent, depth, delegation limit),
 * for whom (session id, the application's own {@link RunValues}), and with what (the registry,
 * the listener, the {@linkplain RunInterceptor interception chain}, observers, the cancel grace). It also adds up the tokens and cost of every model
 * call made under it, delegated children included.
 *
 * <p>An application builds a scope and passes it to a run; the run {@linkplain #runId() enters}
 * its own context from it, and a delegated child's context names its parent run:
 * <pre>{@code
 * RunContext scope = RunContext.builder()
 *         .sessionId("s-42")
 *         .value(TENANT, "acme")
 *         .interceptors(audit)
 *         .build();
 * Message reply = agent.run("Book the flight", scope);
 * Usage used = scope.usage();          // everything the run and its children used
 * }</pre>
 *
 * <p>A tool finds its run's context with {@link #from(ToolContext)}. Immutable apart from the
 * totals, the cancellation of a run and the id and path written when first asked for, all safe
 * for concurrent use.
 */
public final class RunContext {
    /**
     * How long interrupted tool calls, children and members may take to stop, unless a context
     * or an agent says otherwise.
     */
    public static final Duration DEFAULT_CANCEL_GRACE = RunContextSettings.DEFAULT_CANCEL_GRACE;

    /** The key under which a tool's {@link ToolContext#values()} carry the run's context. */
    public static final RunValues.Key<RunContext> KEY = RunValues.Key.of("shelly.run", RunContext.class);

    private static final String RUN_PREFIX = "run_" + randomPrefix();
    private static final AtomicLong RUNS = new AtomicLong();

    /** The run's id when its scope's {@link RunIds} named it, else null. */
    private final String namedId;
    /** A fresh run's id, written from {@link #runNumber} when first asked for. */
    private String freshId;
    /** The number a fresh run id is written from, or 0 (a scope, or a run named by its {@link RunIds}). */
    private final long runNumber;
    private final String agent;
    private final int depth;
    /** What the run runs with: shared by the runs entered alike (see {@link RunScope}). */
    private final RunScope scope;
    /**
     * The context this one was entered from, which its totals and cancellation reach (none for a
     * scope, or a run entered from a fresh root); its parent run and agent are read from it.
     */
    private final RunContext totalsParent;
    /** The run's path, or null for a delegated child's that is made when first asked for ({@link #lazyPath}). */
    private final String path;
    /**
     * A delegated child's path when it was not known at entry: what makes it (a
     * {@code Supplier<String>}) until it is first asked for, then the path itself. Most children
     * are never asked; {@code delegate} asks once the child's run ends, so that a context kept
     * after the run does not keep its delegation.
     */
    private Object lazyPath;
    /**
     * A run's cancellation ({@link #cancel()} cancels a run's context, not a scope the application
     * built: {@link #isRun()}): the request and the run's thread, the thread guarded by this
     * context's monitor. Each section is a few writes and an interrupt, never a wait, so that a
     * thread is interrupted only while the run holds it, never after the run let it go (a
     * session's turn thread goes on to other turns).
     */
    private volatile boolean cancelRequested;
    private Thread thread;
    /** What the runs under this context used; a field updated through {@link #TOTALS}, not an atomic object per run. */
    private volatile Totals totals = Totals.ZERO;
    private static final AtomicReferenceFieldUpdater<RunContext, Totals> TOTALS =
            AtomicReferenceFieldUpdater.newUpdater(RunContext.class, Totals.class, "totals");

    private record Totals(Usage usage, Cost cost) {
        static final Totals ZERO = new Totals(Usage.ZERO, Cost.ZERO);
    }

    /** A scope the application built. */
    private RunContext(RunScope scope) {
        this.namedId = null;
        this.runNumber = 0;
        this.agent = null;
        this.depth = 0;
        this.scope = scope;
        this.totalsParent = null;
        this.path = "";
    }

    private static String randomPrefix() {
        SecureRandom random = new SecureRandom();
        StringBuilder sb = new StringBuilder(14);
        for (int i = 0; i < 13; i++) {
            sb.append(Character.forDigit(random.nextInt(32), 32));
        }
        return sb.append('_').toString();
    }

    /**
     * A fresh, empty scope: no session, no values, no registry, no listener, no links, the
     * default grace. It adds up what the runs entered under it use.
     *
     * @return the scope
     */
    public static RunContext root() {
        return new Builder().build();
    }

    /** {@return a builder} Starts building a scope. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The run context a tool call belongs to.
     *
     * @param tool the tool's context
     * @return the run's context, or empty when the tool was not called by an agent's run
     */
    public static Optional<RunContext> from(ToolContext tool) {
        if (tool == null) {
            throw new IllegalArgumentException("RunContext.from tool context must not be null");
        }
        return tool.values().get(KEY);
    }

    // ------------------------------------------------------------------ what a run knows

    /** {@return the id, or empty for a scope the application built} The run's id, as events and tools see it. */
    public Optional<String> runId() {
        return Optional.ofNullable(id());
    }

    /** The run's id, or null for a scope; a fresh id is written once, when first asked for (most runs never are). */
    private String id() {
        if (namedId != null || runNumber == 0) {
            return namedId;
        }
        String id = freshId;
        if (id == null) {
            id = RUN_PREFIX + Long.toString(runNumber, 32);
            freshId = id; // racy but benign: every thread writes an equal string
        }
        return id;
    }

    /** Whether this is a run's context rather than a scope's. */
    private boolean isRun() {
        return namedId != null || runNumber != 0;
    }

    /**
     * The id of the run that started this one: the delegating agent's run, or the run of the
     * agent that used a team or an agent as a tool.
     *
     * @return the id, or empty for a top-level run
     */
    public Optional<String> parentRunId() {
        return Optional.ofNullable(parentRun());
    }

    /**
     * The parent run's id, read from the context this one was entered from (not kept: many runs
     * wait at once): a delegated child's parent, the run that entered this one, or that run's own
     * parent run when it entered from a scope.
     */
    private String parentRun() {
        RunContext from = totalsParent;
        if (from == null) {
            return null;
        }
        return depth > from.depth || from.isRun() ? from.id() : from.parentRun();
    }

    /** The agent that delegated, read as {@link #parentRun()} is: the parent's when this run is a delegated child. */
    private String delegator() {
        RunContext from = totalsParent;
        if (from == null) {
            return null;
        }
        return depth > from.depth ? from.agent : from.delegator();
    }

    /** {@return the id, or empty when there is none} The session the run belongs to. */
    public Optional<String> sessionId() {
        return Optional.ofNullable(scope.sessionId);
    }

    /** {@return its name, or empty for a scope the application built} The running agent. */
    public Optional<String> agent() {
        return Optional.ofNullable(agent);
    }

    /** {@return its name, or empty at the top of a delegation tree} The agent that delegated to the running one. */
    public Optional<String> parentAgent() {
        return Optional.ofNullable(delegator());
    }

    /** {@return the depth} The delegation depth: 0 at the top, 1 for a delegated child, ... */
    public int depth() {
        return depth;
    }

    /**
     * How deep delegation may go: the lowest limit of the scope and every agent on the way.
     *
     * @return the limit; {@link Integer#MAX_VALUE} when nothing limits it yet
     */
    public int delegationLimit() {
        return scope.delegationLimit;
    }

    /** {@return the registry, or empty when there is none} The registry the run delegates through. */
    public Optional<Registry> registry() {
        return Optional.ofNullable(scope.registry);
    }

    /**
     * The listener the run's events go to (for a run: its agent's own listener, then the
     * caller's).
     *
     * @return the listener, {@link AgentListener#NONE} when none
     */
    public AgentListener listener() {
        return scope.listener;
    }

    /** {@return the values, {@link RunValues#EMPTY} when none} The application's values. */
    public RunValues values() {
        return scope.values;
    }

    /**
     * One of the application's values.
     *
     * @param key the key
     * @param <T> the value's type
     * @return the value, or empty
     */
    public <T> Optional<T> value(RunValues.Key<T> key) {
        return scope.values.get(key);
    }

    /**
     * The links of the run's interception chain that the scope holds: the scope's, then (for a
     * run) its agent's interceptors and middleware. Delegated children inherit all but the
     * middleware. A run adds the {@linkplain #observers() observers} inside them (see
     * {@link RunInterceptor} for the whole order).
     *
     * @return the links, outermost first
     */
    public List<RunInterceptor> interceptors() {
        return scope.links;
    }

    /**
     * The observers that watch the run and everything below it (see {@link RunObserver}).
     * Delegated children, team members and agents used as tools inherit them.
     *
     * @return the {@linkplain RunObserver#active() active} observers, in the order added; empty
     *     when none
     */
    public List<RunObserver> observers() {
        return scope.observers;
    }

    /**
     * How long interrupted tool calls, children and members may take to stop before they are
     * abandoned.
     *
     * @return the grace
     */
    public Duration cancelGrace() {
        return scope.cancelGrace;
    }

    /**
     * The human in the loop: the tool policies and decisions every run under the scope follows,
     * delegated children included.
     *
     * @return the approvals, or empty when tool calls are decided by the links alone
     */
    public Optional<Approvals> approvals() {
        return Optional.ofNullable(scope.approvals);
    }

    /**
     * Where the run stands in its delegation tree: {@code ""} at the top; for a delegated child,
     * its parent's path, the {@code delegate} call's id and the task's index, joined by
     * {@code /} ({@code call_2/0}). The ids of {@linkplain PendingCall pending calls} start with it.
     *
     * @return the path
     */
    public String path() {
        if (path != null) {
            return path;
        }
        Object lazy = lazyPath;
        if (lazy instanceof String made) {
            return made;
        }
        // Two threads may both make it; they make equal strings, and a String is safe to share.
        @SuppressWarnings("unchecked")
        String made = ((Supplier<String>) lazy).get();
        lazyPath = made;
        return made;
    }

    /**
     * The tokens of every model call made under this context so far, delegated children
     * included.
     *
     * @return the total
     */
    public Usage usage() {
        return totals.usage();
    }

    /** {@return the total} The cost of every model call made under this context so far, delegated children included. */
    public Cost cost() {
        return totals.cost();
    }

    /**
     * Adds usage and cost to this context and every context it was entered from: what each
     * model call of a run adds, and what a tool that asks a model itself may add so that its
     * run's totals count it.
     *
     * @param usage the tokens
     * @param cost what they cost
     */
    public void record(Usage usage, Cost cost) {
        if (usage == null || cost == null) {
            throw new IllegalArgumentException("RunContext.record needs a usage and a cost");
        }
        if (usage.equals(Usage.ZERO) && cost.equals(Cost.ZERO)) {
            return; // nothing to add, at any level
        }
        for (RunContext c = this; c != null; c = c.totalsParent) {
            Totals before;
            Totals after;
            do {
                before = c.totals;
                after = new Totals(before.usage().plus(usage), before.cost().plus(cost));
            } while (!TOTALS.compareAndSet(c, before, after));
        }
    }

    /**
     * Cancels this run and the runs below it (its delegated children, theirs, and so on), and no
     * other: the thread running it is interrupted, as a cancelled caller's would be, so the run
     * stops at its next blocking point, answering every call it had open with an error result,
     * and its children stop with it. A delegated child that is cancelled ends its task of the
     * parent's {@code delegate} call with the error {@code agent 'x' was cancelled}, which the
     * parent's model reads, while its sibling tasks go on; a run cancelled before it starts stops
     * at once. Cancelling a run that ended, or a scope that is not a run, changes nothing.
     *
     * @return true when the run was running and is now cancelled
     */
    public boolean cancel() {
        if (!isRun()) {
            return false;
        }
        synchronized (this) {
            cancelRequested = true;
            if (thread == null) {
                return false;
            }
            thread.interrupt();
            return true;
        }
    }

    /**
     * Whether this run, or a run it was entered under, was {@linkplain #cancel() cancelled}.
     *
     * @return true once cancelled
     */
    public boolean cancelled() {
        for (RunContext c = this; c != null; c = c.totalsParent) {
            if (c.cancelRequested) {
                return true;
            }
        }
        return false;
    }

    /** The run starts on the current thread: {@link #cancel()} interrupts it until {@link #unbind()}. */
    void bind() {
        if (isRun()) {
            synchronized (this) {
                thread = Thread.currentThread();
                if (cancelRequested) {
                    thread.interrupt();
                }
            }
        }
    }

    /** The run let the current thread go. */
    void unbind() {
        if (isRun()) {
            synchronized (this) {
                thread = null;
            }
        }
    }

    /**
     * Makes a model call for this run from outside its loop, as a tool may that asks a model
     * itself (what an MCP server's sampling request becomes): the call goes down the run's links
     * ({@link #interceptors()}, then its {@linkplain #observers() observers}) to the completer, as
     * the loop's calls do, with iteration 0; it does not pass the run's own first links, so context
     * management leaves its messages as they are. Its usage and cost are {@linkplain #record
     * recorded} here, so the run's totals and its token budget count them.
     *
     * @param completer the model to ask
     * @param request the request, sent as it is
     * @param prices what the usage costs
     * @return the response
     * @throws dev.shelly.modeladapter.ModelException when the model cannot answer
     */
    public ModelResponse complete(Completer completer, ModelRequest request, ModelTable prices) {
        if (completer == null || request == null || prices == null) {
            throw new IllegalArgumentException("RunContext.complete needs a completer, a request and prices");
        }
        return OutsideLoop.complete(new RunInterceptor.ModelCall(this, 0, request), completer, prices);
    }

    @Override
    public String toString() {
        return "RunContext[" + (isRun() ? id() : "scope") + (agent == null ? "" : ", agent " + agent)
                + (scope.sessionId == null ? "" : ", session " + scope.sessionId) + ", depth " + depth + "]";
    }

    // ------------------------------------------------------------------ package-private

    /** An empty root scope that no run records to: what {@link #enterFresh} enters from. */
    private static final RunContext EMPTY = root();

    /**
     * The context of a run entered from a fresh {@link #root()} that nobody else holds: the same
     * context without the root, whose totals no one could read.
     */
    static RunContext enterFresh(RunDefaults runner) {
        return EMPTY.enter(runner, null);
    }

    /** The context of a run of an agent entered from this one: the agent's defaults after the scope's. */
    RunContext enter(RunDefaults runner) {
        return enter(runner, this);
    }

    private RunContext enter(RunDefaults runner, RunContext totalsParent) {
        return entered(runner, isRun() ? id() : parentRun(), totalsParent, path());
    }

    /**
     * The context of the run of a child of one task of one {@code delegate} call: entered from
     * this run as from a scope one level deeper that names this run, at the child's path, with
     * the child's own cancellation; what it uses is recorded here too.
     */
    RunContext delegated(Supplier<String> childPath, RunDefaults runner) {
        return new RunContext(this, runner, id(), depth + 1, this, null, childPath);
    }

    /** A run's context: the agent's defaults after this context's, under a parent run, at a depth and a path. */
    private RunContext entered(RunDefaults runner, String parentRun, RunContext totalsParent, String path) {
        return new RunContext(this, runner, parentRun, depth, totalsParent, path, null);
    }

    /**
     * A context entered from another: each field stored as it is made, so that a compiler keeps
     * few values aside while it makes them (the frame that enters a run stays under its model
     * calls, and a waiting run's frames are kept on the heap).
     */
    private RunContext(RunContext from, RunDefaults runner, String parentRun, int depth, RunContext totalsParent,
            String path, Supplier<String> pathOf) {
        // A child's path is made now only when the run's id is made from it.
        RunScope above = from.scope;
        String known = path != null || above.runIds == null ? path : pathOf.get();
        String id = above.runIds == null ? null : above.runIds.runId(parentRun, known, runner.agent());
        this.namedId = id;
        this.runNumber = id != null ? 0 : RUNS.incrementAndGet();
        this.agent = runner.agent();
        this.depth = depth;
        this.scope = above.entered(runner);
        this.totalsParent = totalsParent;
        this.path = known;
        this.lazyPath = known == null ? pathOf : null;
    }

    // ------------------------------------------------------------------ builder

    /**
     * Names the runs entered under a scope: how the engine gives the runs of a turn it takes up
     * after a crash the ids they had, so that every tool call's idempotency key is the one it
     * had. Called once per run, when the run is entered, from the thread entering it.
     */
    @FunctionalInterface
    public interface RunIds {
        /**
         * The id of a run about to start.
         *
         * @param parentRunId the run it starts under, or null at the top
         * @param path where it stands in the delegation tree (see {@link RunContext#path()})
         * @param agent its agent
         * @return its id, or null for a fresh one
         */
        String runId(String parentRunId, String path, String agent);
    }

    /** Collects a scope's settings; everything is optional. */
    public static final class Builder extends RunContextSettings<Builder> {
        private Builder() {}

        /**
         * Builds the scope.
         *
         * @return the scope
         */
        public RunContext build() {
            List<RunObserver> active = new ArrayList<>(observers.size());
            for (RunObserver o : observers) {
                if (o.active()) {
                    active.add(o);
                }
            }
            RunScope scope = new RunScope(sessionId, maxDelegationDepth, registry, listener, values,
                    List.copyOf(interceptors), List.copyOf(active), cancelGrace, approvals, runIds);
            // Scopes that set nothing share one, and so do the runs entered from them.
            return new RunContext(scope.isDefault() ? RunScope.DEFAULT : scope);
        }
    }
}
