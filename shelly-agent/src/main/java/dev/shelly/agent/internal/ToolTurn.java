package dev.shelly.agent.internal;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.AgentException;
import dev.shelly.agent.Approvals;
import dev.shelly.agent.AskUser;
import dev.shelly.agent.PendingCall;
import dev.shelly.agent.RunInterceptor.ToolInvocation;
import dev.shelly.agent.ToolDecision;
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
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs the tool calls of one reply and appends one tool message answering every call in order,
 * also when the turn is cancelled. The run's interception chain, then the run's
 * {@link Approvals}, decide about every call before any runs; a lone call runs on the run's own
 * thread, two or more concurrently on virtual threads, each through the chain.
 *
 * <p>With approvals, a call that waits for a decision (or a {@code delegate} call whose child
 * waits) does not stop the others: they run, their results are kept in the approvals, and the
 * turn ends {@linkplain Outcome.Paused paused} without appending anything. The next run picks the
 * kept results up. Without approvals, a pause stops the turn before any call runs.
 */
final class ToolTurn {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /**
     * One call of the turn and what became of it so far. A call changes by being replaced with
     * a new record: on the run's thread while the turn decides, then, while the calls run, only
     * by the thread that settles it; the turn reads it after the join.
     *
     * @param call the call as the model made it, which the chat keeps
     * @param effective the call as the tool gets it: the model's, or a rewrite of its arguments
     * @param result its result once it has one
     * @param decided a delegated call taken up from a pause: decided before, it runs again without asking
     * @param paused why the call waits for a decision (a link's or the approvals' pause), else null
     * @param waiting why a delegated child of the call waits, else null
     */
    record Call(ToolCall call, ToolCall effective, ToolResult result, boolean decided, String paused, String waiting) {
        Call(ToolCall call) {
            this(call, call, null, false, null, null);
        }

        boolean runs() {
            return result == null && paused == null;
        }

        Call answered(ToolResult value) {
            return new Call(call, effective, value, decided, paused, waiting);
        }

        Call rewritten(ToolCall value) {
            return new Call(call, value, result, decided, paused, waiting);
        }

        Call resumed(ToolCall value) {
            return new Call(call, value, result, true, paused, waiting);
        }

        Call pausedFor(String reason) {
            return new Call(call, effective, result, decided, reason, waiting);
        }

        Call waitingFor(String reason) {
            return new Call(call, effective, result, decided, paused, reason);
        }
    }

    /**
     * What one running call came back with: its result, or why its delegated child waits.
     *
     * @param result the result
     * @param waiting why a child of a {@code delegate} call waits, else null
     */
    private record Ran(ToolResult result, String waiting) {}

    private final Run run;
    private final AgentTools tools;
    private final int iteration;
    /** The reply whose calls the turn answers. */
    private final Message reply;
    /** One record per call of the reply, in call order. */
    private final Call[] calls;
    private final Approver desk;
    private final String path;

    /**
     * A turn of one reply's tool calls.
     *
     * @param run the run
     * @param tools the run's tools
     * @param iteration the iteration that made the reply (0 for a paused turn taken up)
     * @param reply the reply whose calls to answer
     */
    ToolTurn(Run run, AgentTools tools, int iteration, Message reply) {
        this.run = run;
        this.tools = tools;
        this.iteration = iteration;
        this.reply = reply;
        List<ToolCall> made = reply.toolCalls();
        this.calls = new Call[made.size()];
        for (int i = 0; i < calls.length; i++) {
            calls[i] = new Call(made.get(i));
        }
        this.desk = run.approver;
        this.path = desk == null ? null : run.context.path(); // the path is the approvals' key
    }

    /**
     * Runs the calls and returns how the turn ended: answered (the tool message appended) or
     * paused; throws when cancelled or a link of the chain failed.
     *
     * @param offered the tools the request offered when a link changed them, else null
     * @param cutOff the output tokens the reply was cut off at when it stopped at the output
     *     limit (0 when the count is unknown), else -1
     */
    Outcome take(List<ToolDefinition> offered, long cutOff) {
        if (desk != null) {
            Approvals.Frame kept = desk.frame(path);
            if (kept != null) {
                resume(kept);
            }
        }
        if (Thread.currentThread().isInterrupted()) {
            return answer(run.cancelled(), true);
        }
        if (offered != null) {
            refuseUnoffered(offered);
        }
        refuseHidden();
        if (cutOff >= 0) {
            refuseCutOff(cutOff);
        }
        boolean anyPaused = false;
        if (run.intercepts) {
            ToolResult[] before = new ToolResult[calls.length];
            for (int i = 0; i < calls.length; i++) {
                before[i] = calls[i].result();
            }
            RuntimeException failure = decide();
            if (failure != null) {
                for (int i = 0; i < calls.length; i++) {
                    ToolCall c = calls[i].call();
                    calls[i] = calls[i].answered(before[i] != null ? before[i]
                            : ToolResult.error(c.id(), "tool '" + c.name() + "' was not run: a tool-call hook failed"));
                }
                return answer(failure, false);
            }
            for (Call c : calls) {
                anyPaused |= c.paused() != null;
            }
            if (anyPaused && desk == null) {
                Map<String, String> reasons = new LinkedHashMap<>();
                for (Call c : calls) {
                    if (c.paused() != null) {
                        reasons.put(c.call().id(), c.paused());
                    }
                }
                return new Outcome.Paused(reply, run.name(), run.context.runId().orElse(null), reasons, null);
            }
        }
        RuntimeException linkFailure = execute();
        if (Thread.currentThread().isInterrupted()) {
            return answer(run.cancelled(), true);
        }
        boolean anyWaiting = false;
        for (Call c : calls) {
            anyWaiting |= c.waiting() != null;
        }
        if (linkFailure == null && (anyPaused || anyWaiting)) {
            return pause();
        }
        return answer(linkFailure, false);
    }

    /**
     * Runs every call that may run, concurrently, each through the chain's tool links.
     *
     * @return the failure of a link, else null; the interrupt flag is set when the turn was cancelled
     */
    private RuntimeException execute() {
        List<Integer> running = new ArrayList<>(calls.length);
        List<Callable<Ran>> tasks = new ArrayList<>(calls.length);
        for (int i = 0; i < calls.length; i++) {
            if (calls[i].runs()) {
                ToolCall call = calls[i].effective();
                running.add(i);
                tasks.add(() -> run(call));
            }
        }
        long start = System.nanoTime();
        if (run.observed) {
            for (int i : running) {
                run.emit(new AgentEvent.ToolCallStarted(run.source(), calls[i].effective()));
            }
        }
        RuntimeException[] failure = new RuntimeException[1];
        FanOut.<Ran>of(tasks)
                .grace(run.context.cancelGrace())
                .propagate(Observers.propagation(run.context.observers()))
                .onSettled((t, outcome) -> settle(running.get(t), outcome, failure, start))
                .join();
        return failure[0];
    }

    /**
     * Runs one allowed call through the chain's tool links, the tool innermost, its handler given
     * the call's idempotency key.
     */
    private Ran run(ToolCall call) {
        Orchestration.Waiting waiting = new Orchestration.Waiting();
        String key = ToolInvocation.idempotencyKey(run.context, call);
        ToolResult result = !run.intercepts ? tools.call(call, run.toolContext().forCall(key), waiting)
                : new Chains.Tool(run.chain(), 0, new ToolInvocation(run.context, iteration, call, key,
                        tools.idempotent(call.name())), c -> tools.call(c, run.toolContext().forCall(key), waiting))
                        .proceed(call);
        return new Ran(result, waiting.reason);
    }

    private void settle(int i, FanOut.Outcome<Ran> outcome, RuntimeException[] failure, long start) {
        Call c = calls[i];
        if (outcome instanceof FanOut.Outcome.Success<Ran> ok && ok.value().waiting() != null) {
            calls[i] = c.waitingFor(ok.value().waiting());
            return;
        }
        ToolResult result = switch (outcome) {
            case FanOut.Outcome.Success<Ran> ok -> ok.value().result();
            case FanOut.Outcome.Failure<Ran> f -> {
                failure[0] = f.error() instanceof RuntimeException r ? r
                        : new AgentException(run.name(), f.error().toString(), f.error());
                yield ToolResult.error(c.call().id(), "tool '" + c.call().name()
                        + "' ran, but a tool-call hook failed on its result");
            }
            default -> cancelledResult(c.call());
        };
        calls[i] = c.answered(result);
        if (run.observed) {
            run.emit(new AgentEvent.ToolCallFinished(run.source(), c.effective(), result, Run.since(start)));
        }
    }

    /** Takes up a paused turn: the results kept for it, and the delegated calls decided before. */
    private void resume(Approvals.Frame kept) {
        for (int i = 0; i < calls.length; i++) {
            String id = calls[i].call().id();
            for (ToolResult r : kept.held()) {
                if (r.toolCallId().equals(id)) {
                    calls[i] = calls[i].answered(r);
                }
            }
            for (ToolCall c : kept.delegated()) {
                if (c.id().equals(id) && calls[i].result() == null) {
                    calls[i] = calls[i].resumed(c);
                }
            }
        }
    }

    /**
     * Keeps what ran and what waits in the approvals and makes the pause: a call the chain or the
     * approvals paused becomes a {@link PendingCall}; a delegated call whose child waits is kept
     * to run again when the child can go on.
     */
    private Outcome.Paused pause() {
        List<ToolResult> held = new ArrayList<>();
        List<PendingCall> asks = new ArrayList<>();
        List<ToolCall> children = new ArrayList<>();
        Map<String, String> reasons = new LinkedHashMap<>();
        for (Call c : calls) {
            if (c.result() != null) {
                held.add(c.result());
            }
            if (c.paused() != null) {
                asks.add(new PendingCall(desk.id(path, c.call().id()), run.name(), c.effective(),
                        c.call().name().equals(AskUser.NAME) ? PendingCall.Kind.QUESTION : PendingCall.Kind.APPROVAL,
                        c.paused(), desk.now()));
                reasons.put(c.call().id(), c.paused());
            } else if (c.waiting() != null) {
                children.add(c.effective());
                reasons.put(c.call().id(), c.waiting());
            }
        }
        List<PendingCall> fresh = desk.pause(path, run.name(), path.isEmpty() ? List.of() : run.chat().messages(), held,
                asks, children);
        if (run.observed) {
            for (PendingCall p : fresh) {
                run.emit(new AgentEvent.DecisionNeeded(run.source(), p));
            }
        }
        return new Outcome.Paused(reply, run.name(), run.context.runId().orElse(null), reasons, desk.pending());
    }

    private void refuseUnoffered(List<ToolDefinition> offered) {
        List<String> names = new ArrayList<>(offered.size());
        for (ToolDefinition d : offered) {
            names.add(d.name());
        }
        for (int i = 0; i < calls.length; i++) {
            String name = calls[i].call().name();
            if (!names.contains(name) && tools.knows(name)) {
                refuse(i, "tool '" + name + "' was not offered in this turn; offered tools: "
                        + (names.isEmpty() ? "none" : String.join(", ", names)));
            }
        }
    }

    private void refuseCutOff(long outputTokens) {
        for (int i = 0; i < calls.length; i++) {
            if (calls[i].result() == null && !isCompleteJson(calls[i].call().arguments())) {
                refuse(i, cutOffText(calls[i].call(), outputTokens));
            }
        }
    }

    /** Refuses the undecided calls of tools the skills loaded in this turn leave out ({@link AgentTools#hidden}). */
    private void refuseHidden() {
        for (int i = 0; i < calls.length; i++) {
            String why = calls[i].result() == null && !calls[i].decided() ? tools.hidden(calls[i].call().name()) : null;
            if (why != null) {
                refuse(i, why);
            }
        }
    }

    private void refuse(int i, String why) {
        calls[i] = calls[i].answered(ToolResult.error(calls[i].call().id(), why));
        if (run.observed) {
            run.emit(new AgentEvent.ToolCallFinished(run.source(), calls[i].effective(), calls[i].result(), Duration.ZERO));
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
            return JSON.readTree(text) != null && !text.isBlank();
        } catch (tools.jackson.core.JacksonException e) {
            return false;
        }
    }

    /**
     * Decides about every call not answered yet, in call order, down the chain's decision links:
     * the approvals' answers first (Links.Answers), their policy innermost.
     *
     * @return the failure of a link, else null
     */
    private RuntimeException decide() {
        Function<ToolCall, ToolDecision> last = desk == null ? c -> ToolDecision.ALLOW : c -> desk.decide(run.name(), c);
        for (int i = 0; i < calls.length; i++) {
            Call c = calls[i];
            if (c.result() != null || c.decided()) {
                continue;
            }
            ToolDecision decision;
            ToolCall[] effective = {c.effective()};
            try {
                ToolCall call = c.effective();
                decision = new Chains.Decision(run.chain(), 0, new ToolInvocation(run.context, iteration, call,
                        ToolInvocation.idempotencyKey(run.context, call), tools.idempotent(call.name())), last, effective)
                        .proceed(call);
            } catch (AgentException e) {
                return e;
            } catch (RuntimeException e) {
                return new AgentException(run.name(), "a tool-call interceptor of agent '" + run.name()
                        + "' failed on tool '" + c.call().name() + "': " + e, e);
            }
            calls[i] = c.rewritten(effective[0]);
            ToolCall model = c.call();
            switch (decision) {
                case ToolDecision.Deny deny -> refuse(i, "tool '" + model.name() + "' was not run: " + deny.reason());
                case ToolDecision.Pause pause -> calls[i] = calls[i].pausedFor(pause.reason());
                case ToolDecision.Rewrite rewrite -> calls[i] = calls[i].rewritten(
                        new ToolCall(model.id(), model.name(), rewrite.arguments()));
                case ToolDecision.Allow allow -> { }
            }
        }
        return null;
    }

    /** Appends the turn's tool message; then throws the failure, if any, and keeps the interrupt. */
    private Outcome.Answered answer(RuntimeException failure, boolean cancelled) {
        if (desk != null) {
            desk.clear(path);
        }
        List<Part> parts = new ArrayList<>(calls.length);
        for (Call c : calls) {
            parts.add(c.result() != null ? c.result() : cancelledResult(c.call()));
        }
        Message answered = new Message(run.name(), Role.TOOL, parts);
        run.append(answered);
        if (cancelled) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw failure;
        }
        return new Outcome.Answered(answered);
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
