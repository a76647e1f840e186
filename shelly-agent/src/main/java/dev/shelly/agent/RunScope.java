package dev.shelly.agent;

import dev.shelly.tools.RunValues;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What a {@link RunContext} runs with, apart from who runs and what it used: the session, the
 * application's values, the registry, the listener, the links, the observers, the grace, the
 * approvals, the run ids and the delegation limit. Immutable apart from its cache of the scopes
 * entered from it, and shared: the runs entered from one context by agents that bring the same
 * defaults get the same scope, so that N concurrent runs (N delegated children of one call) keep
 * one scope between them, not N copies of its fields; every scope the application builds with
 * nothing set ({@link RunContext#root()}) is {@link #DEFAULT}.
 */
final class RunScope {
    final String sessionId;
    final int delegationLimit;
    final Registry registry;
    final AgentListener listener;
    final RunValues values;
    /** The links delegated children inherit, outermost first: the scope's, then (for a run) its agent's. */
    final List<RunInterceptor> interceptors;
    /** The chain's links: those above, then (for a run) its agent's middleware, which children do not inherit. */
    final List<RunInterceptor> links;
    final List<RunObserver> observers;
    final Duration cancelGrace;
    final Approvals approvals;
    /** Names the runs entered under the scope, or null for fresh ids. */
    final RunContext.RunIds runIds;
    /** The defaults this scope was entered with, or null for a scope the application built. */
    private final RunDefaults runner;
    /**
     * The scopes most recently entered from this one, kept weakly and replaced in turn: the next
     * agent that brings the same defaults as one of them shares it (a {@code delegate} call that
     * mixes a few kinds of agent too), and a long-lived scope does not keep an agent's defaults
     * alive. Read and written without a lock: a lost write costs one scope more.
     */
    private final WeakReference<?>[] recent = new WeakReference<?>[RECENT];
    private int next;

    private static final int RECENT = 4;

    /** The scope of every scope the application builds with nothing set. */
    static final RunScope DEFAULT = new RunScope(null, Integer.MAX_VALUE, null, AgentListener.NONE, RunValues.EMPTY,
            List.of(), List.of(), RunContextSettings.DEFAULT_CANCEL_GRACE, null, null);

    RunScope(String sessionId, int delegationLimit, Registry registry, AgentListener listener, RunValues values,
            List<RunInterceptor> links, List<RunObserver> observers, Duration cancelGrace, Approvals approvals,
            RunContext.RunIds runIds) {
        this.sessionId = sessionId;
        this.delegationLimit = delegationLimit;
        this.registry = registry;
        this.listener = events(listener, links);
        this.values = values;
        this.interceptors = links;
        this.links = links;
        this.observers = observers;
        this.cancelGrace = cancelGrace;
        this.approvals = approvals;
        this.runIds = runIds;
        this.runner = null;
    }

    /** The scope of a run of an agent entered from {@code from}: the agent's defaults after the scope's. */
    private RunScope(RunScope from, RunDefaults runner) {
        List<RunInterceptor> own = runner.interceptors();
        this.sessionId = from.sessionId;
        this.delegationLimit = Math.min(from.delegationLimit, runner.maxDelegationDepth());
        this.registry = runner.registry() != null ? runner.registry() : from.registry;
        this.listener = events(runner.listener().andThen(from.listener), concat(own, runner.middleware()));
        this.values = from.values;
        this.interceptors = concat(from.interceptors, own);
        this.links = concat(interceptors, runner.middleware());
        this.observers = from.observers;
        this.cancelGrace = runner.cancelGrace() != null ? runner.cancelGrace() : from.cancelGrace;
        this.approvals = from.approvals;
        this.runIds = from.runIds;
        this.runner = runner;
    }

    /**
     * The scope of a run of an agent with these defaults entered from this scope: one made
     * recently when the agent brings the same defaults (two agents a factory built alike do), else
     * a new one. Safe for concurrent use: two threads may each make one, and either is right.
     */
    RunScope entered(RunDefaults defaults) {
        for (WeakReference<?> kept : recent) {
            if (kept != null && kept.get() instanceof RunScope known && known.runner.sameScope(defaults)) {
                return known;
            }
        }
        RunScope made = new RunScope(this, defaults);
        int at = next;
        next = (at + 1) % RECENT;
        recent[at] = new WeakReference<>(made);
        return made;
    }

    /** Whether this scope sets nothing, as {@link #DEFAULT}. */
    boolean isDefault() {
        return sessionId == null && delegationLimit == Integer.MAX_VALUE && registry == null
                && listener == AgentListener.NONE && values == RunValues.EMPTY && links.isEmpty() && observers.isEmpty()
                && cancelGrace.equals(RunContextSettings.DEFAULT_CANCEL_GRACE) && approvals == null && runIds == null;
    }

    private static AgentListener events(AgentListener listener, List<RunInterceptor> links) {
        AgentListener all = listener;
        for (RunInterceptor i : links) {
            if (i.observesEvents()) {
                all = all.andThen(i::onEvent);
            }
        }
        return all;
    }

    private static <T> List<T> concat(List<T> first, List<T> second) {
        if (second.isEmpty()) {
            return first;
        }
        if (first.isEmpty()) {
            return second;
        }
        List<T> all = new ArrayList<>(first.size() + second.size());
        all.addAll(first);
        all.addAll(second);
        return List.copyOf(all);
    }
}
