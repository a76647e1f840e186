package dev.shelly.agent;

import dev.shelly.agent.RunInterceptor.ModelCall;
import dev.shelly.agent.internal.CallView;
import dev.shelly.agent.internal.ContextManager;
import dev.shelly.agent.internal.FanOut;
import dev.shelly.agent.internal.Observers;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.modeladapter.Usage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of an agent on a conversation, inside the innermost link of its run chain: the turn a
 * pause left open, the input, then the ReAct loop (ask the model through the chain, append the
 * reply, run its tool calls through the chain, until an answer, a stop tool or the limit).
 */
final class ReactLoop {
    private static final Logger LOG = LoggerFactory.getLogger(ReactLoop.class);

    private final Agent agent;
    private final Run run;
    private final Chat chat;
    private final ContextManager contextManager;
    private final AgentTools tools;
    private final StructuredOutput<?> out;
    /** Whether the run took its paused turn and input: a link that proceeds again goes on from the chat. */
    private boolean started;
    /** The model calls made in the run so far, across the times a link proceeds. */
    private int iterations;

    ReactLoop(Run run, AgentTools tools, StructuredOutput<?> out) {
        this.agent = run.agent;
        this.run = run;
        this.chat = run.chat();
        this.contextManager = run.conversation.contextManager(agent);
        this.tools = tools;
        this.out = out;
    }

    /**
     * Runs an agent on a conversation the caller holds for the run: the run's context, its events
     * (started, then finished or failed), and the run chain around this loop.
     */
    static Run execute(Agent agent, Conversation conversation, RunContext caller, List<Message> input,
            StructuredOutput<?> out) {
        long start = System.nanoTime();
        Run run = new Run(agent, conversation, caller.enter(agent), out);
        try {
            run.emit(new AgentEvent.AgentStarted(run.source));
            AgentTools tools = new AgentTools(run, agent.runToolboxes(), agent.skillTool());
            ReactLoop loop = new ReactLoop(run, tools, out);
            java.util.function.Supplier<Message> chain = run.chain.length == 0 ? () -> loop.run(input)
                    : () -> new Chains.Run(run.chain, 0, run, () -> loop.run(input)).proceed();
            Duration limit = agent.timeout().orElse(null);
            run.reply = limit == null ? chain.get() : within(run, chain, limit);
            if (run.paused != null) {
                // A pause is a value; the event carries its public signal, which only Agent's run methods throw.
                run.emit(new AgentEvent.AgentFailed(run.source, run.pauseSignal(), Run.since(start)));
                return run;
            }
            run.emit(new AgentEvent.AgentFinished(run.source, run.reply, Run.since(start), run.context.usage(),
                    run.context.cost()));
            return run;
        } catch (RuntimeException | Error e) {
            run.emit(new AgentEvent.AgentFailed(run.source, e, Run.since(start)));
            throw e;
        }
    }

    /**
     * Runs the chain on a virtual thread of its own, interrupted at the deadline; see
     * {@link Agent.Builder#timeout}.
     */
    private static Message within(Run run, java.util.function.Supplier<Message> chain, Duration limit) {
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
            throw new java.util.concurrent.CancellationException("agent '" + name + "' was cancelled");
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
        throw new dev.shelly.chats.ShellyException("run failed: " + cause, cause);
    }

    /** Input for the next run on a chat, outside a run; see {@link Agent#receive}. */
    static void receive(Agent agent, Chat chat, List<Message> input) {
        if (input == null) {
            throw new IllegalArgumentException("Agent.receive input of '" + agent.name() + "' must not be null");
        }
        for (int i = 0; i < input.size(); i++) {
            if (input.get(i) == null) {
                throw new IllegalArgumentException("Agent.receive input[" + i + "] of '" + agent.name()
                        + "' must not be null");
            }
        }
        List<Message> added = new ArrayList<>(input.size() + 1);
        if (agent.systemPromptInChat() && chat.isEmpty()) {
            added.add(Message.system(agent.systemPrompt()));
        }
        added.addAll(input);
        AgentEvent.Source source = new AgentEvent.Source(agent.name(), null, 0);
        for (Message m : added) {
            chat.append(m);
            if (agent.listener() != AgentListener.NONE) {
                Run.emitQuietly(agent.listener(), agent.name(), new AgentEvent.MessageAdded(source, m));
            }
        }
    }

    /**
     * The paused turn, if any, the input, then the loop. When a turn pauses, the loop records the
     * pause on the run and returns the reply whose calls wait.
     */
    Message run(List<Message> input) {
        if (started) {
            return loop();
        }
        started = true;
        List<ToolCall> pending = pausedCalls(agent.name(), chat);
        if (!pending.isEmpty()) {
            if (new ToolTurn(run, tools, 0, chat.last().orElseThrow()).take(null, -1) instanceof Outcome.Paused p) {
                run.paused = p;
                return p.reply();
            }
        }
        if (agent.systemPromptInChat() && chat.isEmpty()) {
            run.append(Message.system(systemPrompt()));
        }
        for (Message m : input) {
            run.append(m);
        }
        return loop();
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
     * Ends a paused turn without running what waits; see {@link Agent#cancelPaused}.
     *
     * @return whether the chat ended with a paused turn
     */
    static boolean cancelPaused(Agent agent, Chat chat, RunContext context, String reason) {
        List<ToolCall> calls = pausedCalls(agent.name(), chat);
        Approvals desk = context.approvals().orElse(null);
        if (calls.isEmpty()) {
            return false;
        }
        Approvals.Frame kept = desk == null ? null : desk.frame(context.path());
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
        Message answered = new Message(agent.name(), Role.TOOL, parts);
        chat.append(answered);
        AgentListener all = agent.listener().andThen(context.listener());
        if (all != AgentListener.NONE) {
            Run.emitQuietly(all, agent.name(), new AgentEvent.MessageAdded(new AgentEvent.Source(agent.name(), null, 0),
                    answered));
        }
        if (desk != null) {
            desk.clearPaused();
        }
        return true;
    }

    private String systemPrompt() {
        return SystemPrompt.build(agent.name(), agent.description(), agent.instructions(), agent.context(), agent.skills(),
                run.canDelegate() ? run.otherAgents() : List.of());
    }

    private Message loop() {
        String name = agent.name();
        RunContext ctx = run.context;
        AgentEvent.Source src = run.source;
        StreamListener deltas = run.observed ? delta -> run.emit(new AgentEvent.StreamDelta(src, delta)) : StreamListener.NONE;
        ModelOptions options = agent.options();
        ModelOptions runOptions = out == null ? options : options.withResponseFormat(out.format());
        int maxIterations = agent.maxIterations();
        Set<String> stopTools = agent.stopTools();
        Message prompt = null;
        while (maxIterations == Agent.UNLIMITED || iterations < maxIterations) {
            int iteration = ++iterations;
            if (Thread.currentThread().isInterrupted()) {
                throw run.cancelled();
            }
            List<ToolDefinition> offered = tools.definitions();
            boolean promptInChat = agent.systemPromptInChat() && !chat.isEmpty() && chat.get(0).role() == Role.SYSTEM;
            if (prompt == null && !promptInChat) {
                prompt = Message.system(systemPrompt());
            }
            CallView view;
            ModelRequest request;
            List<ToolDefinition> built;
            List<ToolDefinition> scope;
            ModelRequest fromView;
            ModelResponse response;
            long start;
            // A request the model refuses as longer than its window is shaped again by the
            // context policy, once, and sent again (ContextManager#overflowed).
            while (true) {
                List<Message> plain = contextManager.plain(promptInChat ? null : prompt);
                view = plain != null ? null : contextManager.view(run, iteration, promptInChat ? null : prompt, offered);
                request = view == null ? new ModelRequest(plain, offered, runOptions, chat.id())
                        : new ModelRequest(view.list(), view.toolList(), runOptions, chat.id());
                built = request.tools();
                scope = view != null && view.scoped() ? built : null;
                fromView = request;
                ModelCall first = new ModelCall(ctx, iteration, request);
                // The call as it reached the completer: a link may have rewritten the request.
                ModelCall[] sent = {first};
                start = System.nanoTime();
                try {
                    response = run.chain.length == 0 ? complete(first, deltas)
                            : new Chains.Model(run.chain, 0, first, agent.completer().target(), c -> complete(c, deltas), sent)
                                    .proceed(request);
                    request = sent[0].request();
                    break;
                } catch (ModelException e) {
                    if (e.kind() != ModelException.Kind.CONTEXT_LENGTH_EXCEEDED) {
                        throw e;
                    }
                    LOG.debug("agent '{}': the model refused the request as too long: {}", name, e.getMessage());
                    contextManager.overflowed(e, sent[0].request() == fromView ? view : null);
                }
            }
            if (contextManager.active()) {
                contextManager.measured(request, response, request == fromView ? view : null);
            }
            Message reply = response.message();
            if (!reply.sender().equals(name)) {
                reply = reply.withSender(name);
            }
            run.append(reply);
            Usage usage = response.usage();
            ctx.record(usage, usage.equals(Usage.ZERO) ? Cost.ZERO : agent.prices().cost(response.model(), usage));
            if (run.observed) {
                run.emit(new AgentEvent.CompletionFinished(src, iteration, reply, response, Run.since(start)));
            }
            run.lastResponse = response;
            List<ToolCall> calls = reply.toolCalls();
            if (calls.isEmpty()) {
                return reply;
            }
            Outcome end = new ToolTurn(run, tools, iteration, reply)
                    .take(request.tools() == built ? scope : request.tools(), cutOff(response, request));
            if (end instanceof Outcome.Paused p) {
                run.paused = p;
                return reply;
            }
            if (!stopTools.isEmpty() && callsAny(calls, stopTools)) {
                return end.reply();
            }
        }
        throw new MaxIterationsException(name, maxIterations);
    }

    /** The innermost link of a model call: the completer, the request announced first. */
    private ModelResponse complete(ModelCall call, StreamListener deltas) {
        if (run.observed) {
            run.emit(new AgentEvent.CompletionStarted(run.source, call.iteration(), call.request()));
        }
        ModelResponse response = agent.completer().complete(call.request(), deltas);
        if (response == null) {
            throw new AgentException(agent.name(), "the completer of agent '" + agent.name()
                    + "' returned null instead of a response", null);
        }
        return response;
    }

    /**
     * The output tokens a reply that stopped at the output limit was cut off at: the count the
     * provider reported, else the limit the request set, else 0; -1 when the reply was not cut off.
     */
    private static long cutOff(ModelResponse response, ModelRequest request) {
        if (response.stopReason() != StopReason.MAX_TOKENS) {
            return -1;
        }
        long output = response.usage().outputTokens();
        if (output > 0) {
            return output;
        }
        Integer limit = request.options().maxTokens();
        return limit != null ? limit : 0;
    }

    private static boolean callsAny(List<ToolCall> calls, Set<String> names) {
        for (ToolCall c : calls) {
            if (names.contains(c.name())) {
                return true;
            }
        }
        return false;
    }
}
