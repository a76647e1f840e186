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
 * also when the turn is cancelled. The tool-call hooks decide about every call before any runs;
 * a lone call runs on the run's own thread, two or more concurrently on virtual threads.
 */
final class ToolTurn {
    private ToolTurn() {}

    /**
     * Runs the calls and returns the tool message appended, or throws when cancelled, paused, or
     * a hook failed.
     *
     * @param offered the tools the request offered when a hook changed them, else null
     */
    static Message run(Run run, int iteration, List<ToolCall> calls, AgentTools tools, List<ToolDefinition> offered) {
        int n = calls.size();
        ToolResult[] results = new ToolResult[n];
        ToolCall[] effective = calls.toArray(new ToolCall[0]);
        if (Thread.currentThread().isInterrupted()) {
            return answer(run, calls, results, run.cancelled(), true);
        }
        if (offered != null) {
            refuseUnoffered(run, calls, tools, offered, results);
        }
        List<ToolCallHook> hooks = run.context.toolCallHooks();
        if (!hooks.isEmpty()) {
            RuntimeException failure = decide(run, iteration, calls, hooks, effective, results);
            if (failure != null) {
                for (int i = 0; i < n; i++) {
                    results[i] = ToolResult.error(calls.get(i).id(), "tool '" + calls.get(i).name()
                            + "' was not run: a tool-call hook failed");
                }
                return answer(run, calls, results, failure, false);
            }
        }
        List<Integer> slots = new ArrayList<>(n);
        List<Callable<ToolResult>> tasks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            if (results[i] != null) {
                continue;
            }
            ToolCall call = effective[i];
            slots.add(i);
            tasks.add(() -> after(run, iteration, hooks, call, execute(run, iteration, call, tools)));
        }
        long[] starts = new long[n];
        if (run.observed) {
            for (int slot : slots) {
                run.emit(new AgentEvent.ToolCallStarted(run.source, effective[slot]));
            }
        }
        long start = System.nanoTime();
        for (int slot : slots) {
            starts[slot] = start;
        }
        RuntimeException[] hookFailure = new RuntimeException[1];
        FanOut.Joined<ToolResult> joined = FanOut.<ToolResult>of(tasks)
                .grace(run.context.cancelGrace())
                .propagate(Observers.propagation(run.context.observers()))
                .onSettled((t, outcome) -> {
                    int i = slots.get(t);
                    ToolCall call = calls.get(i);
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
                        run.emit(new AgentEvent.ToolCallFinished(run.source, effective[i], result, Agent.since(starts[i])));
                    }
                })
                .join();
        if (joined.interrupted()) {
            return answer(run, calls, results, run.cancelled(), true);
        }
        return answer(run, calls, results, hookFailure[0], false);
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
     * Asks the hooks about every call still open: fills denials into {@code results} and
     * rewrites into {@code effective}; throws {@link RunPausedException} on a pause; returns the
     * failure of a hook that threw or returned null, else null.
     */
    private static RuntimeException decide(Run run, int iteration, List<ToolCall> calls, List<ToolCallHook> hooks,
            ToolCall[] effective, ToolResult[] results) {
        Map<String, String> paused = new LinkedHashMap<>();
        for (int i = 0; i < calls.size(); i++) {
            if (results[i] != null) {
                continue;
            }
            ToolCall call = calls.get(i);
            for (int h = 0; h < hooks.size(); h++) {
                ToolDecision decision;
                try {
                    decision = hooks.get(h).beforeToolCall(new ToolInvocation(run.context, iteration, effective[i]));
                } catch (RuntimeException e) {
                    return new AgentException(run.name(), "tool-call hook " + (h + 1) + " of agent '" + run.name()
                            + "' failed on tool '" + call.name() + "': " + e, e);
                }
                if (decision == null) {
                    return new AgentException(run.name(), "tool-call hook " + (h + 1) + " of agent '" + run.name()
                            + "' returned null instead of a decision", null);
                }
                if (decision instanceof ToolDecision.Deny deny) {
                    results[i] = ToolResult.error(call.id(), "tool '" + call.name() + "' was not run: " + deny.reason());
                    if (run.observed) {
                        run.emit(new AgentEvent.ToolCallFinished(run.source, effective[i], results[i], Duration.ZERO));
                    }
                    break;
                }
                if (decision instanceof ToolDecision.Pause pause) {
                    paused.put(call.id(), pause.reason());
                    break;
                }
                if (decision instanceof ToolDecision.Rewrite rewrite) {
                    effective[i] = new ToolCall(call.id(), call.name(), rewrite.arguments());
                }
            }
        }
        if (!paused.isEmpty()) {
            throw new RunPausedException(run.name(), run.context.runId().orElse(null), calls, paused);
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
            boolean cancelled) {
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
