package dev.shelly.agent;

import dev.shelly.agent.internal.FanOut;
import dev.shelly.agent.internal.Observers;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Runs the tool calls of one reply and appends one tool message answering every call in order,
 * also when the turn is cancelled. The tool-call hooks, then the run's {@link Approvals}, decide
 * about every call before any runs; a lone call runs on the run's own thread, two or more
 * concurrently on virtual threads.
 *
 * <p>With approvals, a call that waits for a decision (or a {@code delegate} call whose child
 * waits) does not stop the others: they run, their results are kept in the approvals, and the
 * turn then throws {@link RunPausedException} without appending anything. The next run picks the
 * kept results up. Without approvals, a pause stops the turn before any call runs.
 */
final class ToolTurn {
    private ToolTurn() {}

    /**
     * Runs the calls and returns the tool message appended, or throws when cancelled, paused, or
     * a hook failed.
     *
     * @param offered the tools the request offered when a hook changed them, else null
     * @param cutOff the output tokens the reply was cut off at when it stopped at the output
     *     limit (0 when the count is unknown), else -1
     */
    static Message run(Run run, int iteration, List<ToolCall> calls, AgentTools tools, List<ToolDefinition> offered,
            long cutOff) {
        int n = calls.size();
        ToolResult[] results = new ToolResult[n];
        ToolCall[] effective = calls.toArray(new ToolCall[0]);
        Approvals desk = run.context.approvals().orElse(null);
        String path = run.context.path();
        boolean[] decided = new boolean[n];
        if (desk != null) {
            Approvals.Frame kept = desk.frame(path);
            if (kept != null) {
                resume(kept, calls, results, effective, decided);
            }
        }
        if (Thread.currentThread().isInterrupted()) {
            return answer(run, calls, results, run.cancelled(), true, desk);
        }
        if (offered != null) {
            refuseUnoffered(run, calls, tools, offered, results);
        }
        if (cutOff >= 0) {
            refuseCutOff(run, calls, cutOff, results);
        }
        List<ToolCallHook> hooks = run.context.toolCallHooks();
        Map<String, String> paused = hooks.isEmpty() && desk == null ? Map.of() : new LinkedHashMap<>();
        if (!hooks.isEmpty() || desk != null) {
            ToolResult[] kept = results.clone();
            RuntimeException failure = decide(run, iteration, calls, hooks, desk, effective, results, decided, paused);
            if (failure != null) {
                for (int i = 0; i < n; i++) {
                    results[i] = kept[i] != null ? kept[i] : ToolResult.error(calls.get(i).id(), "tool '"
                            + calls.get(i).name() + "' was not run: a tool-call hook failed");
                }
                return answer(run, calls, results, failure, false, desk);
            }
            if (!paused.isEmpty() && desk == null) {
                throw new RunPausedException(run.name(), run.context.runId().orElse(null), calls, paused);
            }
        }
        int[] slots = new int[n];
        List<Callable<ToolResult>> tasks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            if (results[i] != null || paused.containsKey(calls.get(i).id())) {
                continue;
            }
            ToolCall call = effective[i];
            slots[tasks.size()] = i;
            tasks.add(() -> after(run, iteration, hooks, call, execute(run, iteration, call, tools)));
        }
        long start = System.nanoTime();
        if (run.observed) {
            for (int t = 0; t < tasks.size(); t++) {
                run.emit(new AgentEvent.ToolCallStarted(run.source, effective[slots[t]]));
            }
        }
        RuntimeException[] hookFailure = new RuntimeException[1];
        // Why each call waits for a delegated child's decision, by call index; each task writes its own.
        String[] waitingFor = new String[n];
        FanOut.Joined<ToolResult> joined = FanOut.<ToolResult>of(tasks)
                .grace(run.context.cancelGrace())
                .propagate(Observers.propagation(run.context.observers()))
                .onSettled((t, outcome) -> {
                    int i = slots[t];
                    ToolCall call = calls.get(i);
                    if (outcome instanceof FanOut.Outcome.Failure<ToolResult> f && f.error() instanceof RunPausedException p) {
                        waitingFor[i] = p.getMessage();
                        return;
                    }
                    ToolResult result = switch (outcome) {
                        case FanOut.Outcome.Success<ToolResult> s -> s.value();
                        case FanOut.Outcome.Failure<ToolResult> f -> {
                            hookFailure[0] = f.error() instanceof RuntimeException r ? r
                                    : new AgentException(run.name(), f.error().toString(), f.error());
                            yield ToolResult.error(call.id(), "tool '" + call.name()
                                    + "' ran, but a tool-call hook failed on its result");
                        }
                        default -> cancelledResult(call);
                    };
                    results[i] = result;
                    if (run.observed) {
                        run.emit(new AgentEvent.ToolCallFinished(run.source, effective[i], result, Agent.since(start)));
                    }
                })
                .join();
        if (joined.interrupted()) {
            return answer(run, calls, results, run.cancelled(), true, desk);
        }
        Map<String, String> waiting = Map.of();
        List<ToolCall> delegated = List.of();
        for (int i = 0; i < n; i++) {
            if (waitingFor[i] != null) {
                if (waiting.isEmpty()) {
                    waiting = new LinkedHashMap<>();
                    delegated = new ArrayList<>();
                }
                waiting.put(calls.get(i).id(), waitingFor[i]);
                delegated.add(effective[i]);
            }
        }
        if (hookFailure[0] == null && (!paused.isEmpty() || !waiting.isEmpty())) {
            throw pause(run, calls, effective, results, paused, waiting, delegated, desk, path);
        }
        return answer(run, calls, results, hookFailure[0], false, desk);
    }

    /** Takes up a paused turn: the kept results, and the calls that ran and wait for a child. */
    private static void resume(Approvals.Frame kept, List<ToolCall> calls, ToolResult[] results, ToolCall[] effective,
            boolean[] decided) {
        for (int i = 0; i < calls.size(); i++) {
            String id = calls.get(i).id();
            for (ToolResult r : kept.held()) {
                if (r.toolCallId().equals(id)) {
                    results[i] = r;
                }
            }
            for (ToolCall c : kept.delegated()) {
                if (c.id().equals(id) && results[i] == null) {
                    effective[i] = c;
                    decided[i] = true;
                }
            }
        }
    }

    /** Keeps what the turn did in the approvals, announces the calls that newly wait, and makes the exception. */
    private static RunPausedException pause(Run run, List<ToolCall> calls, ToolCall[] effective, ToolResult[] results,
            Map<String, String> paused, Map<String, String> waiting, List<ToolCall> delegated, Approvals desk,
            String path) {
        List<ToolResult> held = new ArrayList<>();
        for (ToolResult r : results) {
            if (r != null) {
                held.add(r);
            }
        }
        List<PendingCall> asks = new ArrayList<>(paused.size());
        for (int i = 0; i < calls.size(); i++) {
            ToolCall call = calls.get(i);
            String reason = paused.get(call.id());
            if (reason != null) {
                asks.add(new PendingCall(Approvals.id(path, call.id()), run.name(), effective[i],
                        call.name().equals(AskUser.NAME) ? PendingCall.Kind.QUESTION : PendingCall.Kind.APPROVAL,
                        reason, desk.now()));
            }
        }
        List<ToolCall> children = new ArrayList<>();
        for (ToolCall call : calls) {
            for (ToolCall d : delegated) {
                if (d.id().equals(call.id())) {
                    children.add(d);
                }
            }
        }
        List<PendingCall> fresh = desk.pause(path, run.name(), path.isEmpty() ? List.of() : run.chat().messages(), held,
                asks, children);
        if (run.observed) {
            for (PendingCall p : fresh) {
                run.emit(new AgentEvent.DecisionNeeded(run.source, p));
            }
        }
        Map<String, String> reasons = new LinkedHashMap<>();
        for (ToolCall call : calls) {
            String reason = paused.containsKey(call.id()) ? paused.get(call.id()) : waiting.get(call.id());
            if (reason != null) {
                reasons.put(call.id(), reason);
            }
        }
        return new RunPausedException(run.name(), run.context.runId().orElse(null), calls, reasons, desk.pending());
    }

    /** Answers calls to tools the run has but the (hook-rewritten) request did not offer. */
    private static void refuseUnoffered(Run run, List<ToolCall> calls, AgentTools tools, List<ToolDefinition> offered,
            ToolResult[] results) {
        List<String> names = new ArrayList<>(offered.size());
        for (ToolDefinition d : offered) {
            names.add(d.name());
        }
        for (int i = 0; i < calls.size(); i++) {
            ToolCall call = calls.get(i);
            if (!names.contains(call.name()) && tools.knows(call.name())) {
                results[i] = ToolResult.error(call.id(), "tool '" + call.name() + "' was not offered in this turn; "
                        + "offered tools: " + (names.isEmpty() ? "none" : String.join(", ", names)));
                if (run.observed) {
                    run.emit(new AgentEvent.ToolCallFinished(run.source, call, results[i], Duration.ZERO));
                }
            }
        }
    }

    /**
     * Answers, without running them, the calls whose arguments the output limit cut off: they
     * are not complete JSON, and the model is told why and what to change.
     */
    private static void refuseCutOff(Run run, List<ToolCall> calls, long outputTokens, ToolResult[] results) {
        for (int i = 0; i < calls.size(); i++) {
            ToolCall call = calls.get(i);
            if (results[i] == null && !isCompleteJson(call.arguments())) {
                results[i] = ToolResult.error(call.id(), cutOffText(call, outputTokens));
                if (run.observed) {
                    run.emit(new AgentEvent.ToolCallFinished(run.source, call, results[i], Duration.ZERO));
                }
            }
        }
    }

    /**
     * What a call cut off at the output limit is answered with, for example: {@code the reply was
     * cut off at 256 output tokens (the output limit) before the arguments of tool 'write_file'
     * were complete, so it was not run; raise max_tokens (ModelOptions.maxTokens) to let the call
     * finish, or split the work into smaller calls. The arguments received: {"path":"a.txt","te}
     */
    static String cutOffText(ToolCall call, long outputTokens) {
        return "the reply was cut off at " + (outputTokens > 0 ? outputTokens + " output tokens (the output limit)"
                : "the output limit") + " before the arguments of tool '" + call.name() + "' were complete, so it was not "
                + "run; raise max_tokens (ModelOptions.maxTokens) to let the call finish, or split the work into smaller "
                + "calls. The arguments received: " + call.arguments();
    }

    private static boolean isCompleteJson(String text) {
        try {
            return Approvals.JSON.readTree(text) != null && !text.isBlank();
        } catch (tools.jackson.core.JacksonException e) {
            return false;
        }
    }

    /**
     * Decides about every call still open: an answer given to a waiting call first, else the
     * hooks, then the approvals' policy. Fills denials into {@code results}, rewrites into
     * {@code effective} and pauses into {@code paused}; returns the failure of a hook that threw
     * or returned null, else null.
     */
    private static RuntimeException decide(Run run, int iteration, List<ToolCall> calls, List<ToolCallHook> hooks,
            Approvals desk, ToolCall[] effective, ToolResult[] results, boolean[] decided, Map<String, String> paused) {
        String path = run.context.path();
        for (int i = 0; i < calls.size(); i++) {
            if (results[i] != null || decided[i]) {
                continue;
            }
            ToolCall call = calls.get(i);
            ToolDecision decision = ToolDecision.ALLOW;
            Answer answer = desk == null ? null : desk.take(Approvals.id(path, call.id()));
            if (answer != null) {
                decision = Approvals.decision(answer, effective[i]);
            } else {
                for (int h = 0; h < hooks.size(); h++) {
                    ToolDecision d;
                    try {
                        d = hooks.get(h).beforeToolCall(new ToolInvocation(run.context, iteration, effective[i]));
                    } catch (RuntimeException e) {
                        return new AgentException(run.name(), "tool-call hook " + (h + 1) + " of agent '" + run.name()
                                + "' failed on tool '" + call.name() + "': " + e, e);
                    }
                    if (d == null) {
                        return new AgentException(run.name(), "tool-call hook " + (h + 1) + " of agent '" + run.name()
                                + "' returned null instead of a decision", null);
                    }
                    if (d instanceof ToolDecision.Rewrite rewrite) {
                        effective[i] = new ToolCall(call.id(), call.name(), rewrite.arguments());
                    } else if (!(d instanceof ToolDecision.Allow)) {
                        decision = d;
                        break;
                    }
                }
                if (decision instanceof ToolDecision.Allow && desk != null) {
                    decision = desk.decide(run.name(), effective[i]);
                }
            }
            switch (decision) {
                case ToolDecision.Deny deny -> {
                    results[i] = ToolResult.error(call.id(), "tool '" + call.name() + "' was not run: " + deny.reason());
                    if (run.observed) {
                        run.emit(new AgentEvent.ToolCallFinished(run.source, effective[i], results[i], Duration.ZERO));
                    }
                }
                case ToolDecision.Pause pause -> paused.put(call.id(), pause.reason());
                case ToolDecision.Rewrite rewrite -> effective[i] = new ToolCall(call.id(), call.name(), rewrite.arguments());
                case ToolDecision.Allow allow -> { }
            }
        }
        return null;
    }

    /** Runs one call, inside the observers' observation of it when the run has observers. */
    private static ToolResult execute(Run run, int iteration, ToolCall call, AgentTools tools) {
        List<RunObserver> observers = run.context.observers();
        if (observers.isEmpty()) {
            return tools.call(call, run.toolContext());
        }
        ToolInvocation invocation = new ToolInvocation(run.context, iteration, call);
        RunObserver.Observation<ToolResult> observed = Observers.start(observers, o -> o.toolCallStarted(invocation));
        ToolResult result;
        try {
            result = tools.call(call, run.toolContext());
        } catch (RuntimeException | Error e) {
            observed.end(null, e);
            throw e;
        }
        observed.end(result, null);
        return result;
    }

    /** Runs the after-hooks, in reverse order, on a call's result. */
    private static ToolResult after(Run run, int iteration, List<ToolCallHook> hooks, ToolCall call, ToolResult result) {
        if (hooks.isEmpty()) {
            return result;
        }
        ToolInvocation invocation = new ToolInvocation(run.context, iteration, call);
        for (int h = hooks.size() - 1; h >= 0; h--) {
            ToolResult next;
            try {
                next = hooks.get(h).afterToolCall(invocation, result);
            } catch (RuntimeException e) {
                throw new AgentException(run.name(), "tool-call hook " + (h + 1) + " of agent '" + run.name()
                        + "' failed on the result of tool '" + call.name() + "': " + e, e);
            }
            if (next == null) {
                throw new AgentException(run.name(), "tool-call hook " + (h + 1) + " of agent '" + run.name()
                        + "' returned null instead of a result", null);
            }
            result = next;
        }
        return result;
    }

    /** Appends the tool message answering every call (a cancelled result where none is), then throws or returns it. */
    private static Message answer(Run run, List<ToolCall> calls, ToolResult[] results, RuntimeException failure,
            boolean cancelled, Approvals desk) {
        if (desk != null) {
            desk.clear(run.context.path());
        }
        List<Part> parts = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            parts.add(results[i] != null ? results[i] : cancelledResult(calls.get(i)));
        }
        Message answered = new Message(run.name(), Role.TOOL, parts);
        run.append(answered);
        if (cancelled) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw failure;
        }
        return answered;
    }

    static ToolResult cancelledResult(ToolCall call) {
        return ToolResult.error(call.id(), "tool '" + call.name() + "' was cancelled before it finished");
    }
}
