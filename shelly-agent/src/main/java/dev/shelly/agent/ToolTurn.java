package dev.shelly.agent;

import dev.shelly.agent.RunInterceptor.ToolInvocation;
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
import java.util.function.Function;

/**
 * Runs the tool calls of one reply and appends one tool message answering every call in order,
 * also when the turn is cancelled. The run's interception chain, then the run's
 * {@link Approvals}, decide about every call before any runs; a lone call runs on the run's own
 * thread, two or more concurrently on virtual threads, each through the chain.
 *
 * <p>With approvals, a call that waits for a decision (or a {@code delegate} call whose child
 * waits) does not stop the others: they run, their results are kept in the approvals, and the
 * turn ends {@linkplain Paused paused} without appending anything. The next run picks the
 * kept results up. Without approvals, a pause stops the turn before any call runs.
 */
final class ToolTurn {
    private final Run run;
    private final int iteration;
    private final List<ToolCall> calls;
    private final List<Slot> slots;
    private final Approvals desk;
    private final String path;

    /**
     * One call of the turn and what became of it. Only the thread that settles a call writes its
     * slot; the turn reads it after the join.
     */
    private static final class Slot {
        final ToolCall call;
        /** The call as the tool gets it: the model's, or a rewrite of its arguments. */
        ToolCall effective;
        ToolResult result;
        /** A delegated call taken up from a pause: decided before, it runs again without asking. */
        boolean decided;
        /** Why the call waits for a decision (a link's or the approvals' pause), else null. */
        String paused;
        /** Why a delegated child of the call waits, else null. */
        String waiting;

        Slot(ToolCall call) {
            this.call = call;
            this.effective = call;
        }

        boolean runs() {
            return result == null && paused == null;
        }
    }

    /** How a turn ended: its tool message appended, or paused with nothing appended. */
    sealed interface End permits Answered, Paused {}

    /**
     * The turn's results are in the chat.
     *
     * @param message the tool message appended
     */
    record Answered(Message message) implements End {}

    /**
     * The turn waits: for a decision about some of its calls, or for a delegated child that waits.
     * The loop returns it as it is; only the public run methods turn it into a
     * {@link RunPausedException}.
     *
     * @param agent the agent whose turn waits
     * @param runId the run, or null
     * @param calls the calls of the turn, in order
     * @param reasons why each waiting call waits, by call id
     * @param decisions what the approvals wait for, or null when the run has no approvals
     */
    record Paused(String agent, String runId, List<ToolCall> calls, Map<String, String> reasons,
            List<PendingCall> decisions) implements End {
        /** The public signal of this pause. */
        RunPausedException signal() {
            return decisions == null ? new RunPausedException(agent, runId, calls, reasons)
                    : new RunPausedException(agent, runId, calls, reasons, decisions);
        }
    }

    private ToolTurn(Run run, int iteration, List<ToolCall> calls) {
        this.run = run;
        this.iteration = iteration;
        this.calls = calls;
        this.slots = new ArrayList<>(calls.size());
        for (ToolCall c : calls) {
            slots.add(new Slot(c));
        }
        this.desk = run.context.approvals().orElse(null);
        this.path = run.context.path();
    }

    /**
     * Runs the calls and returns how the turn ended: answered (the tool message appended) or
     * paused; throws when cancelled or a link of the chain failed.
     *
     * @param offered the tools the request offered when a link changed them, else null
     * @param cutOff the output tokens the reply was cut off at when it stopped at the output
     *     limit (0 when the count is unknown), else -1
     */
    static End run(Run run, int iteration, List<ToolCall> calls, AgentTools tools, List<ToolDefinition> offered,
            long cutOff) {
        return new ToolTurn(run, iteration, calls).run(tools, offered, cutOff);
    }

    private End run(AgentTools tools, List<ToolDefinition> offered, long cutOff) {
        if (desk != null) {
            Approvals.Frame kept = desk.frame(path);
            if (kept != null) {
                resume(kept);
            }
        }
        if (Thread.currentThread().isInterrupted()) {
            return new Answered(answer(run.cancelled(), true));
        }
        if (offered != null) {
            refuseUnoffered(tools, offered);
        }
        if (cutOff >= 0) {
            refuseCutOff(cutOff);
        }
        boolean anyPaused = false;
        if (run.chain.length > 0 || desk != null) {
            List<ToolResult> before = new ArrayList<>(slots.size());
            for (Slot s : slots) {
                before.add(s.result);
            }
            RuntimeException failure = decide();
            if (failure != null) {
                for (int i = 0; i < slots.size(); i++) {
                    Slot s = slots.get(i);
                    s.result = before.get(i) != null ? before.get(i) : ToolResult.error(s.call.id(), "tool '"
                            + s.call.name() + "' was not run: a tool-call hook failed");
                }
                return new Answered(answer(failure, false));
            }
            for (Slot s : slots) {
                anyPaused |= s.paused != null;
            }
            if (anyPaused && desk == null) {
                Map<String, String> reasons = new LinkedHashMap<>();
                for (Slot s : slots) {
                    if (s.paused != null) {
                        reasons.put(s.call.id(), s.paused);
                    }
                }
                return new Paused(run.name(), run.context.runId().orElse(null), calls, reasons, null);
            }
        }
        List<Slot> running = new ArrayList<>(slots.size());
        List<Callable<ToolResult>> tasks = new ArrayList<>(slots.size());
        for (Slot s : slots) {
            if (s.runs()) {
                ToolCall call = s.effective;
                running.add(s);
                tasks.add(() -> execute(call, tools));
            }
        }
        long start = System.nanoTime();
        if (run.observed) {
            for (Slot s : running) {
                run.emit(new AgentEvent.ToolCallStarted(run.source, s.effective));
            }
        }
        RuntimeException[] linkFailure = new RuntimeException[1];
        FanOut.Joined<ToolResult> joined = FanOut.<ToolResult>of(tasks)
                .grace(run.context.cancelGrace())
                .propagate(Observers.propagation(run.context.observers()))
                .onSettled((t, outcome) -> settle(running.get(t), outcome, linkFailure, start))
                .join();
        if (joined.interrupted()) {
            return new Answered(answer(run.cancelled(), true));
        }
        boolean anyWaiting = false;
        for (Slot s : slots) {
            anyWaiting |= s.waiting != null;
        }
        if (linkFailure[0] == null && (anyPaused || anyWaiting)) {
            return pause();
        }
        return new Answered(answer(linkFailure[0], false));
    }

    private void settle(Slot s, FanOut.Outcome<ToolResult> outcome, RuntimeException[] linkFailure, long start) {
        if (outcome instanceof FanOut.Outcome.Failure<ToolResult> f && f.error() instanceof RunPausedException p) {
            s.waiting = p.getMessage();
            return;
        }
        s.result = switch (outcome) {
            case FanOut.Outcome.Success<ToolResult> ok -> ok.value();
            case FanOut.Outcome.Failure<ToolResult> f -> {
                linkFailure[0] = f.error() instanceof RuntimeException r ? r
                        : new AgentException(run.name(), f.error().toString(), f.error());
                yield ToolResult.error(s.call.id(), "tool '" + s.call.name()
                        + "' ran, but a tool-call hook failed on its result");
            }
            default -> cancelledResult(s.call);
        };
        if (run.observed) {
            run.emit(new AgentEvent.ToolCallFinished(run.source, s.effective, s.result, Run.since(start)));
        }
    }

    /** Takes up a paused turn: the results kept for it, and the delegated calls decided before. */
    private void resume(Approvals.Frame kept) {
        for (Slot s : slots) {
            String id = s.call.id();
            for (ToolResult r : kept.held()) {
                if (r.toolCallId().equals(id)) {
                    s.result = r;
                }
            }
            for (ToolCall c : kept.delegated()) {
                if (c.id().equals(id) && s.result == null) {
                    s.effective = c;
                    s.decided = true;
                }
            }
        }
    }

    /**
     * Keeps what ran and what waits in the approvals and makes the pause: a call the chain or the
     * approvals paused becomes a {@link PendingCall}; a delegated call whose child waits is kept
     * to run again when the child can go on.
     */
    private Paused pause() {
        List<ToolResult> held = new ArrayList<>();
        List<PendingCall> asks = new ArrayList<>();
        List<ToolCall> children = new ArrayList<>();
        Map<String, String> reasons = new LinkedHashMap<>();
        for (Slot s : slots) {
            if (s.result != null) {
                held.add(s.result);
            }
            if (s.paused != null) {
                asks.add(new PendingCall(Approvals.id(path, s.call.id()), run.name(), s.effective,
                        s.call.name().equals(AskUser.NAME) ? PendingCall.Kind.QUESTION : PendingCall.Kind.APPROVAL,
                        s.paused, desk.now()));
                reasons.put(s.call.id(), s.paused);
            } else if (s.waiting != null) {
                children.add(s.effective);
                reasons.put(s.call.id(), s.waiting);
            }
        }
        List<PendingCall> fresh = desk.pause(path, run.name(), path.isEmpty() ? List.of() : run.chat().messages(), held,
                asks, children);
        if (run.observed) {
            for (PendingCall p : fresh) {
                run.emit(new AgentEvent.DecisionNeeded(run.source, p));
            }
        }
        return new Paused(run.name(), run.context.runId().orElse(null), calls, reasons, desk.pending());
    }

    private void refuseUnoffered(AgentTools tools, List<ToolDefinition> offered) {
        List<String> names = new ArrayList<>(offered.size());
        for (ToolDefinition d : offered) {
            names.add(d.name());
        }
        for (Slot s : slots) {
            if (!names.contains(s.call.name()) && tools.knows(s.call.name())) {
                refuse(s, "tool '" + s.call.name() + "' was not offered in this turn; offered tools: "
                        + (names.isEmpty() ? "none" : String.join(", ", names)));
            }
        }
    }

    private void refuseCutOff(long outputTokens) {
        for (Slot s : slots) {
            if (s.result == null && !isCompleteJson(s.call.arguments())) {
                refuse(s, cutOffText(s.call, outputTokens));
            }
        }
    }

    private void refuse(Slot s, String why) {
        s.result = ToolResult.error(s.call.id(), why);
        if (run.observed) {
            run.emit(new AgentEvent.ToolCallFinished(run.source, s.effective, s.result, Duration.ZERO));
        }
    }

    /**
     * What the model reads for a call cut off at the output limit.
     *
     * @param outputTokens the limit, or 0 when unknown
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
     * Decides about every call not answered yet, in call order: an answer the approvals hold for
     * a waiting call, else the chain's decision links, the approvals' policy innermost.
     *
     * @return the failure of a link, else null
     */
    private RuntimeException decide() {
        Function<ToolCall, ToolDecision> last = desk == null ? c -> ToolDecision.ALLOW : c -> desk.decide(run.name(), c);
        for (Slot s : slots) {
            if (s.result != null || s.decided) {
                continue;
            }
            ToolDecision decision;
            Answer answer = desk == null ? null : desk.take(Approvals.id(path, s.call.id()));
            if (answer != null) {
                decision = Approvals.decision(answer, s.effective);
            } else if (run.chain.length == 0) {
                decision = last.apply(s.effective);
            } else {
                ToolCall[] effective = {s.effective};
                try {
                    decision = new Chains.Decision(run.chain, 0, new ToolInvocation(run.context, iteration, s.effective), last,
                            effective).proceed(s.effective);
                } catch (AgentException e) {
                    return e;
                } catch (RuntimeException e) {
                    return new AgentException(run.name(), "a tool-call interceptor of agent '" + run.name()
                            + "' failed on tool '" + s.call.name() + "': " + e, e);
                }
                s.effective = effective[0];
            }
            switch (decision) {
                case ToolDecision.Deny deny -> refuse(s, "tool '" + s.call.name() + "' was not run: " + deny.reason());
                case ToolDecision.Pause pause -> s.paused = pause.reason();
                case ToolDecision.Rewrite rewrite -> s.effective = new ToolCall(s.call.id(), s.call.name(), rewrite.arguments());
                case ToolDecision.Allow allow -> { }
            }
        }
        return null;
    }

    /** Runs one allowed call through the chain's tool links, the tool innermost. */
    private ToolResult execute(ToolCall call, AgentTools tools) {
        if (run.chain.length == 0) {
            return tools.call(call, run.toolContext());
        }
        return new Chains.Tool(run.chain, 0, new ToolInvocation(run.context, iteration, call),
                c -> tools.call(c, run.toolContext())).proceed(call);
    }

    /** Appends the turn's tool message; then throws the failure, if any, and keeps the interrupt. */
    private Message answer(RuntimeException failure, boolean cancelled) {
        if (desk != null) {
            desk.clear(path);
        }
        List<Part> parts = new ArrayList<>(slots.size());
        for (Slot s : slots) {
            parts.add(s.result != null ? s.result : cancelledResult(s.call));
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

    /**
     * The result of a call that did not finish because the run was cancelled.
     *
     * @param call the call
     * @return an error result saying so
     */
    static ToolResult cancelledResult(ToolCall call) {
        return ToolResult.error(call.id(), "tool '" + call.name() + "' was cancelled before it finished");
    }
}
