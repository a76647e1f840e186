package dev.shelly.agent.internal;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.AgentException.AgentTimeoutException;
import dev.shelly.agent.AgentListener;
import dev.shelly.agent.Approvals;
import dev.shelly.agent.RunContext;
import dev.shelly.agent.StructuredOutput;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.ShellyException;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Internal, not API. The agent's way into the loop: a run of one agent on one conversation (its
 * events, its time limit, its chain around the loop), the input taken between runs, and the end
 * of a paused turn.
 */
public final class Runs {
    private Runs() {}

    /**
     * What a run needs, as the agent's package hands it over.
     *
     * @param spec the agent's description
     * @param chat the conversation's chat, which the caller holds for the run
     * @param contextManager the conversation's context management state for this agent
     * @param context the run's context, entered from the caller's scope
     * @param input the messages to append after a paused turn is taken up
     * @param out the record a structured run answers with, or null
     * @param approver the context's approvals, or null when it has none
     */
    public record Start(AgentSpec spec, Chat chat, ContextManager contextManager, RunContext context,
            List<Message> input, StructuredOutput<?> out, Approver approver) {}

    // A run is driven by the agent's package, in one frame: it calls started, then drives the flat
    // loop itself (Run.flat: Run.first and Run.after call ended once there is no next request) or
    // walks the links and calls ended with the reply; or it calls failed; and stopped at last. The
    // frames under a model call are what a waiting run's virtual thread keeps on the heap, so there
    // are few of them, and they call all of this out of line (OutOfLine).

    /**
     * Starts a run: announces it and makes its tools and loop. A failure here is announced, and
     * what the run's skills brought is stopped, before it is thrown.
     *
     * @param start what the run needs
     * @return the run, ready for its loop
     */
    public static Run started(Start start) {
        Run run = new Run(start);
        try {
            if (run.observed) {
                run.emit(new AgentEvent.AgentStarted(run.source()));
            }
            AgentSpec spec = start.spec();
            // A run that offers no tool makes its tools only if the model calls one anyway.
            boolean offers = !spec.runToolboxes().isEmpty() || spec.skillTool() != null || run.canDelegate;
            AgentTools tools = offers ? new AgentTools(run, spec.runToolboxes(), spec.skillTool()) : null;
            run.loop = new ReactLoop(run, tools, start.input());
            return run;
        } catch (RuntimeException | Error e) {
            failed(run, e);
            stopped(run);
            throw e;
        }
    }

    /**
     * The loop of a run that is not flat (see {@link Run#flat()}): down its links, under its
     * time limit on a thread of its own when it has one.
     *
     * @param run the run
     * @param links the walk down the run's links, given the run; it ends in {@link Run#proceed()}
     * @return the run's final message, or the reply whose calls wait
     */
    public static Message walk(Run run, Function<Run, Message> links) {
        Duration limit = run.agent.timeout();
        return limit == null ? links.apply(run) : within(run, () -> links.apply(run), limit);
    }

    /**
     * Ends a run with its reply and announces how: finished, or paused (a failure that carries
     * the pause's signal).
     *
     * @param run the run
     * @param reply its final message, or the reply whose calls wait
     */
    public static void ended(Run run, Message reply) {
        run.reply = reply;
        if (!run.observed) {
            return;
        }
        if (run.paused != null) {
            run.emit(new AgentEvent.AgentFailed(run.source(), run.pauseSignal(), Run.since(run.startNanos)));
            return;
        }
        run.emit(new AgentEvent.AgentFinished(run.source(), run.reply, Run.since(run.startNanos), run.context.usage(),
                run.context.cost()));
    }

    /**
     * Announces that a run failed.
     *
     * @param run the run
     * @param e what it failed with
     */
    public static void failed(Run run, Throwable e) {
        if (run.observed) {
            run.emit(new AgentEvent.AgentFailed(run.source(), e, Run.since(run.startNanos)));
        }
    }

    /**
     * Stops what the run's skills brought, once the run ends in any way.
     *
     * @param run the run
     */
    public static void stopped(Run run) {
        if (run.loop != null) {
            run.loop.stopBrought();
        }
    }

    /** Runs the chain on a virtual thread of its own, interrupted at the deadline. */
    private static Message within(Run run, Supplier<Message> chain, Duration limit) {
        String name = run.name();
        FanOut.Joined<Message> joined = FanOut.<Message>of(List.of(chain::get))
                .deadline(limit)
                .grace(run.context.cancelGrace())
                .names(i -> "shelly-timeout-" + name)
                .propagate(Observers.propagation(run.context.observers()))
                .join();
        FanOut.Outcome<Message> outcome = joined.outcomes().getFirst();
        if (outcome instanceof FanOut.Outcome.Success<Message> s) {
            return s.value();
        }
        if (joined.interrupted()) {
            throw new CancellationException("agent '" + name + "' was cancelled");
        }
        if (joined.timedOut()) {
            throw new AgentTimeoutException(name, limit);
        }
        Throwable cause = ((FanOut.Outcome.Failure<Message>) outcome).error();
        if (cause instanceof RuntimeException r) {
            throw r;
        }
        if (cause instanceof Error err) {
            throw err;
        }
        throw new ShellyException("run failed: " + cause, cause);
    }

    /**
     * Input for the next run on a chat, outside a run: the system prompt first on an empty chat
     * (when it belongs in the chat), then the messages, each announced to the agent's listener.
     *
     * @param spec the agent
     * @param chat the chat
     * @param input the messages, in order
     */
    public static void receive(AgentSpec spec, Chat chat, List<Message> input) {
        if (input == null) {
            throw new IllegalArgumentException("Agent.receive input of '" + spec.name() + "' must not be null");
        }
        for (int i = 0; i < input.size(); i++) {
            if (input.get(i) == null) {
                throw new IllegalArgumentException("Agent.receive input[" + i + "] of '" + spec.name()
                        + "' must not be null");
            }
        }
        List<Message> added = new ArrayList<>(input.size() + 1);
        if (spec.systemPromptInChat() && chat.isEmpty()) {
            added.add(Message.system(spec.systemPrompt()));
        }
        added.addAll(input);
        AgentEvent.Source source = new AgentEvent.Source(spec.name(), null, 0);
        for (Message m : added) {
            chat.append(m);
            if (spec.listener() != AgentListener.NONE) {
                Run.emitQuietly(spec.listener(), spec.name(), new AgentEvent.MessageAdded(source, m));
            }
        }
    }

    /**
     * The calls of a paused turn: the chat ends with this agent's reply whose tool calls have no
     * results yet.
     */
    static List<ToolCall> pausedCalls(String agent, Chat chat) {
        Optional<Message> last = chat.last();
        if (last.isEmpty() || last.get().role() != Role.ASSISTANT || !last.get().sender().equals(agent)) {
            return List.of();
        }
        return last.get().toolCalls();
    }

    /**
     * Ends a paused turn without running what waits: one tool message answering every call of
     * the turn, the kept result for a call that ran and {@code tool 'x' was not run: <reason>}
     * for every other, then forgets what the approvals kept.
     *
     * @param spec the agent
     * @param chat the conversation's chat, which the caller holds
     * @param context the scope the turn paused in
     * @param approver its approvals, or null
     * @param reason why the calls did not run
     * @return whether the chat ended with a paused turn
     */
    public static boolean cancelPaused(AgentSpec spec, Chat chat, RunContext context, Approver approver,
            String reason) {
        List<ToolCall> calls = pausedCalls(spec.name(), chat);
        if (calls.isEmpty()) {
            return false;
        }
        Approvals.Frame kept = approver == null ? null : approver.frame(context.path());
        List<Part> parts = new ArrayList<>(calls.size());
        for (ToolCall call : calls) {
            ToolResult result = null;
            if (kept != null) {
                for (ToolResult r : kept.held()) {
                    if (r.toolCallId().equals(call.id())) {
                        result = r;
                    }
                }
            }
            parts.add(result != null ? result : ToolResult.error(call.id(), "tool '" + call.name() + "' was not run: "
                    + reason));
        }
        Message answered = new Message(spec.name(), Role.TOOL, parts);
        chat.append(answered);
        AgentListener all = spec.listener().andThen(context.listener());
        if (all != AgentListener.NONE) {
            Run.emitQuietly(all, spec.name(), new AgentEvent.MessageAdded(new AgentEvent.Source(spec.name(), null, 0),
                    answered));
        }
        if (approver != null) {
            approver.clearPaused();
        }
        return true;
    }
}
