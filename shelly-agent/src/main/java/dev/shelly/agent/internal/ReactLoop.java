package dev.shelly.agent.internal;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.AgentException;
import dev.shelly.agent.AgentException.MaxIterationsException;
import dev.shelly.agent.RunInterceptor.ModelCall;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.modeladapter.Usage;
import java.util.List;
import java.util.Set;

/**
 * One run of an agent on a conversation: the turn a pause left open, the input, then the ReAct
 * loop (ask the model, append the reply, run its tool calls, until an answer, a stop tool or the
 * limit). A run with links runs it as the innermost link of its chain ({@link #run()}); a flat
 * run is driven by the agent, a model call at a time ({@link #first()}, {@link #after}).
 */
final class ReactLoop {
    // The run's agent, chat and structured output are read from the run: a waiting run keeps
    // fewer fields (many runs wait at once).
    private final Run run;
    /**
     * The run's tools; null until needed for a run that offers none (no toolbox, skill or
     * delegation), which then makes them only if the model calls a tool anyway.
     */
    private AgentTools tools;
    /**
     * The run's input until the run takes it up with its paused turn; null once taken (a link that
     * proceeds again goes on from the chat).
     */
    private List<Message> input;
    /** The model calls made in the run so far, across the times a link proceeds. */
    private int iterations;
    /** Where the model's stream deltas go: the run's events, or nowhere when nobody listens. */
    private StreamListener deltas = StreamListener.NONE;
    /** The options of the run's model calls, made at its first call. */
    private ModelOptions runOptions;
    /** The latest model call's request as it went furthest down the chain. */
    private ModelRequest sent;
    /** The tools the latest model call offers, kept while the flat loop waits for its reply. */
    private List<ToolDefinition> offered;
    /** The view context management made the latest request of the flat loop from, or null. */
    private CallView view;

    ReactLoop(Run run, AgentTools tools, List<Message> input) {
        this.run = run;
        this.tools = tools;
        this.input = input;
    }

    /** {@return the run's tools, made now for a run that offers none} */
    AgentTools tools() {
        if (tools == null) {
            tools = new AgentTools(run, run.agent.runToolboxes(), run.agent.skillTool());
        }
        return tools;
    }

    /** Stops what the run's skills brought, once the run ends. */
    void stopBrought() {
        if (tools != null) {
            tools.stopBrought();
        }
    }

    /**
     * The loop of a run whose chain holds links, as its innermost link: the paused turn, if any,
     * the input, then each model call down the chain. When a turn pauses, the loop records the
     * pause on the run and returns the reply whose calls wait.
     */
    Message run() {
        Message end = open();
        while (end == null) {
            List<ToolDefinition> offered = next();
            end = take(iterations, intercepted(iterations, offered));
        }
        return end;
    }

    // The loop of a flat run (see Run#flat) is driven from the frame that holds the run (the
    // agent's): it asks first for a request, calls the completer itself, then asks after the
    // reply for the next request, until there is none. Nothing here stays on the stack during a
    // model call; the frames under a call are what a waiting run's virtual thread keeps on the heap.

    /** {@return where the model's stream deltas go for the flat loop's calls} */
    StreamListener deltas() {
        return deltas;
    }

    /** The flat loop's first request, or null when the run ended before it (a paused turn that pauses again). */
    ModelRequest first() {
        return nextUnless(open());
    }

    /** The flat loop's next request after a reply, or null when the run ended with it. */
    ModelRequest after(ModelResponse response) {
        answered(response);
        ModelRequest shaped = run.shaped;
        Links.Shaping.measured(run, shaped, response, view);
        sent = shaped;
        view = null;
        return nextUnless(take(iterations, response));
    }

    /** The run's end, kept as its reply, when there is one; else the next call's request. */
    private ModelRequest nextUnless(Message end) {
        if (end != null) {
            run.reply = end;
            return null;
        }
        offered = next();
        return shaped();
    }

    /** The flat loop's request shaped again after the model refused it as too long; thrown on for any other refusal. */
    ModelRequest refused(ModelException e) {
        Links.Shaping.refused(run, e, view);
        return shaped();
    }

    /** The flat loop's request for the call being made: shaped, then announced. */
    private ModelRequest shaped() {
        view = Links.Shaping.shape(run, iterations, offered, runOptions, run.chat().id());
        ModelRequest shaped = run.shaped;
        if (run.observed) {
            announce(iterations, shaped);
        }
        return shaped;
    }

    /**
     * Takes up the run the first time (the paused turn and the input), then gets the loop ready
     * each time a link proceeds.
     *
     * @return the reply whose calls still wait when the paused turn pauses again, else null
     */
    private Message open() {
        List<Message> taken = input;
        if (taken != null) {
            input = null;
            Message paused = begin(taken);
            if (paused != null) {
                return paused;
            }
        }
        run.prompt = null; // made again each time a link proceeds, as the registry may have changed
        if (run.observed && deltas == StreamListener.NONE) {
            AgentEvent.Source src = run.source();
            deltas = delta -> run.emit(new AgentEvent.StreamDelta(src, delta));
        }
        return null;
    }

    /** The paused turn and the input: the reply whose calls still wait when the turn pauses again, else null. */
    private Message begin(List<Message> input) {
        List<ToolCall> pending = Runs.pausedCalls(run.agent.name(), run.chat());
        if (!pending.isEmpty()) {
            // The paused turn's calls may be of tools a skill loaded in that turn brought.
            tools().startFollowed();
            if (new ToolTurn(run, tools(), 0, run.chat().last().orElseThrow()).take(null, -1) instanceof Outcome.Paused p) {
                run.paused = p;
                return p.reply();
            }
        }
        boolean opens = run.agent.systemPromptInChat() && run.chat().isEmpty();
        if (opens) {
            // One append: the prompt and the input arrive together.
            Message[] all = new Message[input.size() + 1];
            all[0] = systemPrompt();
            for (int i = 0; i < input.size(); i++) {
                all[i + 1] = input.get(i);
            }
            run.appendAll(all);
        } else if (!input.isEmpty()) {
            run.appendAll(input);
        }
        if (tools != null) {
            tools.startFollowed();
        }
        return null;
    }

    private Message systemPrompt() {
        AgentSpec agent = run.agent;
        return SystemPrompt.message(agent.name(), agent.description(), agent.instructions(), agent.context(), agent.skills(),
                run.canDelegate ? run.otherAgents() : List.of());
    }

    /**
     * Starts the next model call: counted against the limit, refused when the run's thread was
     * interrupted, then made ready.
     *
     * @return the tools the call offers
     */
    private List<ToolDefinition> next() {
        int maxIterations = run.agent.maxIterations();
        if (maxIterations != AgentSpec.UNLIMITED && iterations >= maxIterations) {
            throw new MaxIterationsException(run.agent.name(), maxIterations);
        }
        iterations++;
        if (Thread.currentThread().isInterrupted()) {
            throw run.cancelled();
        }
        return prepare();
    }

    /** Gets a model call ready: the system prompt in front of the chat when it does not open with it, the options; the tools offered. */
    private List<ToolDefinition> prepare() {
        List<ToolDefinition> offered = tools == null ? List.of() : tools.definitions();
        Chat chat = run.chat();
        boolean promptInChat = run.agent.systemPromptInChat() && !chat.isEmpty() && chat.get(0).role() == Role.SYSTEM;
        if (promptInChat) {
            run.prompt = null;
        } else if (run.prompt == null) {
            run.prompt = systemPrompt();
        }
        if (runOptions == null) {
            runOptions = run.out == null ? run.agent.options() : run.agent.options().withResponseFormat(run.out.format());
        }
        return offered;
    }

    /** A model call down the run's chain; context management, the first link, gives it the messages (Links.Shaping). */
    private ModelResponse intercepted(int iteration, List<ToolDefinition> offered) {
        ModelRequest base = new ModelRequest(List.of(), offered, runOptions, run.chat().id());
        ModelCall first = new ModelCall(run.context, iteration, base);
        // The call as it went furthest down the chain: a link may have rewritten the request.
        ModelCall[] furthest = {first};
        ModelResponse response = new Chains.Model(run.chain(), 0, first, run.agent.completer().target(),
                c -> complete(c.iteration(), c.request()), furthest).proceed(base);
        sent = furthest[0].request();
        return response;
    }

    /**
     * What follows a model call: the reply appended and counted, then its tool calls taken.
     *
     * @return the run's last message when the run ends here (an answer, a pause, a stop tool), else null
     */
    private Message take(int iteration, ModelResponse response) {
        ModelRequest request = sent;
        long start = run.callStart;
        Message reply = response.message();
        if (!reply.sender().equals(run.agent.name())) {
            reply = reply.withSender(run.agent.name());
        }
        run.append(reply);
        Usage usage = response.usage();
        run.context.record(usage, usage.equals(Usage.ZERO) ? Cost.ZERO : run.agent.prices().cost(response.model(), usage));
        if (run.observed) {
            run.emit(new AgentEvent.CompletionFinished(run.source(), iteration, reply, response, Run.since(start)));
        }
        run.lastResponse = response;
        List<ToolCall> calls = reply.toolCalls();
        if (calls.isEmpty()) {
            return reply;
        }
        Outcome end = new ToolTurn(run, tools(), iteration, reply)
                .take(request.tools() == run.shaped.tools() ? run.scoped : request.tools(), cutOff(response, request));
        if (end instanceof Outcome.Paused p) {
            run.paused = p;
            return reply;
        }
        Set<String> stopTools = run.agent.stopTools();
        if (!stopTools.isEmpty() && callsAny(calls, stopTools)) {
            return end.reply();
        }
        return null;
    }

    /** The innermost link of a model call down the chain: the completer, the request announced first. */
    private ModelResponse complete(int iteration, ModelRequest request) {
        if (run.observed) {
            announce(iteration, request);
        }
        return answered(run.agent.completer().complete(request, deltas));
    }

    private void announce(int iteration, ModelRequest request) {
        run.emit(new AgentEvent.CompletionStarted(run.source(), iteration, request));
    }

    private ModelResponse answered(ModelResponse response) {
        if (response == null) {
            throw new AgentException(run.agent.name(), "the completer of agent '" + run.agent.name()
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
