package dev.shelly.agent;

import dev.shelly.agent.AgentException.MaxIterationsException;
import dev.shelly.agent.AgentException.StructuredOutputException;
import dev.shelly.agent.internal.AgentSpec;
import dev.shelly.agent.internal.Children;
import dev.shelly.agent.internal.ContextManager;
import dev.shelly.agent.internal.OutOfLine;
import dev.shelly.agent.internal.Run;
import dev.shelly.agent.internal.Runs;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.skills.Skill;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;

/**
 * An agent: it reasons with a model, acts with tools, finds other agents in a {@link Registry}
 * and delegates work to them concurrently, follows {@link Skill}s, and runs inside its
 * {@linkplain RunInterceptor interception chain}.
 *
 * <pre>{@code
 * Agent agent = Agent.builder("weather-bot")
 *         .description("A helpful weather assistant")
 *         .instructions("Answer weather questions.")
 *         .completer(model)
 *         .toolboxes(weatherTools)
 *         .build();
 * Message answer = agent.run("What's the weather in Paris?");
 * }</pre>
 *
 * <h2>The run</h2>
 * An agent never changes after {@link Builder#build()}. Each run enters its own
 * {@link RunContext} from the caller's scope ({@link #run(String, RunContext)}; the overloads
 * without one use {@link RunContext#root()}): run id, session, the application's values,
 * depth, registry, listener and the links of its {@linkplain RunInterceptor interception chain}
 * (the context's, then the agent's interceptors, then its middleware, then the observers).
 * Inside the chain, {@link #run()} first answers the calls of a
 * {@linkplain RunPausedException paused} turn, if the chat ends with one, then runs the ReAct
 * loop, which the {@linkplain dev.shelly.agent package overview} describes step by step with
 * delegation and cancellation.
 *
 * <h2>Threads and conversations</h2>
 * An agent is an immutable, thread-safe description (model, tools, prompt, limits, links of the
 * {@linkplain RunInterceptor interception chain}); what a run changes lives in a
 * {@link Conversation}: the chat and context management's state. One agent runs any number of
 * conversations at once ({@link #run(Conversation, String, RunContext)}); a conversation takes
 * one run at a time (a second concurrent run on it is refused). The methods without a
 * conversation are conveniences that continue the agent's own ({@link #conversation()}), so
 * {@code agent.run("...")} twice is one conversation of two turns, as it always was. A registry
 * spawns a fresh agent for each delegation.
 */
public final class Agent extends AgentDefinition implements Runner {
    /** How long cancelled tool calls and children may take to stop, unless the builder or the run's context says. */
    public static final Duration DEFAULT_CANCEL_GRACE = RunContext.DEFAULT_CANCEL_GRACE;

    /** The most model calls in one run unless the builder says: a few rounds of tools, a bound on a loop. */
    public static final int DEFAULT_MAX_ITERATIONS = AgentSettings.DEFAULT_MAX_ITERATIONS;

    /** The iteration limit that means no limit: {@code maxIterations(Agent.UNLIMITED)}. */
    public static final int UNLIMITED = AgentSpec.UNLIMITED;

    /** How deep delegation may go unless the builder says: the agents an agent delegates to work alone. */
    public static final int DEFAULT_MAX_DELEGATION_DEPTH = AgentSettings.DEFAULT_MAX_DELEGATION_DEPTH;

    private final String name;
    /** What the agent brings to the context of each of its runs; {@link Spawner} enters its children with it. */
    final RunDefaults defaults;
    /** The agent's own conversation, which the convenience methods without one run on. */
    private final Conversation conversation;

    private Agent(AgentSpec spec, Chat chat) {
        super(spec);
        this.name = spec.name();
        this.defaults = new RunDefaults(name, spec.registry(), spec.cancelGrace(), spec.maxDelegationDepth(),
                spec.listener(), spec.interceptors(), spec.middleware());
        this.conversation = new Conversation(chat == null ? new Chat() : chat);
    }
    /**
     * Starts building an agent.
     *
     * @param name the agent's name: its identity in prompts, chats, the registry and events
     * @return a builder
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /**
     * Runs the agent on its chat, as it is, in a fresh scope: {@code run(RunContext.root())}; see
     * {@link #run(RunContext)}.
     *
     * @return the final message, as appended to the chat
     */
    @Override
    public Message run() {
        return signalled(hold(conversation, List.of(), null, false, null)).reply();
    }

    /**
     * Runs the agent on its chat, as it is, inside a caller's scope: writes the system prompt
     * when the chat is empty (and the prompt belongs in the chat), then runs the middleware and
     * the ReAct loop. The run enters its own {@link RunContext} from {@code context}.
     *
     * @param context the caller's scope, for example {@link RunContext#root()}
     * @return the final message, as appended to the chat
     * @throws MaxIterationsException when the iteration limit is reached
     * @throws dev.shelly.modeladapter.ModelException when the model fails
     * @throws CancellationException when the run is interrupted
     * @throws RunPausedException when tool calls of the last turn wait for a decision (the chat
     *     ends with the reply whose calls wait; the next run takes them up)
     * @throws IllegalStateException when the agent is already running
     */
    @Override
    public Message run(RunContext context) {
        return signalled(hold(conversation, List.of(), require(context, "context"), false, null)).reply();
    }

    /**
     * Appends a user message (sender {@code user}) and runs: writes the system prompt first
     * when the chat is empty.
     *
     * @param userMessage what the user says; not blank
     * @return the final message
     */
    public Message run(String userMessage) {
        return signalled(hold(conversation, List.of(userInput(userMessage)), null, false, null)).reply();
    }

    /**
     * Appends a user message (sender {@code user}) and runs inside a caller's scope.
     *
     * @param userMessage what the user says; not blank
     * @param context the caller's scope
     * @return the final message
     */
    public Message run(String userMessage, RunContext context) {
        return signalled(hold(conversation, List.of(userInput(userMessage)), require(context, "context"), false,
                null)).reply();
    }

    /**
     * Appends input messages and runs: writes the system prompt first when the chat is empty,
     * so the prompt comes before the input.
     *
     * @param input the messages to append, in order
     * @return the final message
     */
    public Message run(List<Message> input) {
        require(input, "input");
        return signalled(hold(conversation, input, null, false, null)).reply();
    }

    /**
     * Appends input messages and runs inside a caller's scope.
     *
     * @param input the messages to append, in order
     * @param context the caller's scope
     * @return the final message
     */
    public Message run(List<Message> input, RunContext context) {
        require(input, "input");
        return signalled(hold(conversation, input, require(context, "context"), false, null)).reply();
    }

    /**
     * Appends a user message to a conversation and runs the agent on it, inside a caller's scope:
     * as {@link #run(String, RunContext)} does on the agent's own conversation. Any number of
     * conversations may run on one agent at once; each conversation takes one run at a time.
     *
     * @param conversation the conversation to continue
     * @param userMessage what the user says; not blank
     * @param context the caller's scope
     * @return the final message, as appended to the conversation's chat
     * @throws IllegalStateException when a run is already on the conversation
     */
    public Message run(Conversation conversation, String userMessage, RunContext context) {
        Conversation on = require(conversation, "conversation");
        return signalled(hold(on, List.of(userInput(userMessage)), require(context, "context"), false, null)).reply();
    }

    /**
     * Appends input messages to a conversation and runs the agent on it (an empty input continues
     * the conversation as it is, a paused turn first), inside a caller's scope.
     *
     * @param conversation the conversation to continue
     * @param input the messages to append, in order
     * @param context the caller's scope
     * @return the final message, as appended to the conversation's chat
     * @throws IllegalStateException when a run is already on the conversation
     */
    public Message run(Conversation conversation, List<Message> input, RunContext context) {
        require(input, "input");
        Conversation on = require(conversation, "conversation");
        return signalled(hold(on, input, require(context, "context"), false, null)).reply();
    }

    /**
     * Appends a user message and runs until the model's final answer fits a record: the answer
     * is asked for in the record's JSON schema (the provider's structured output where it has
     * one), then validated and bound. Tools work as in any run. An answer that does not fit
     * gets one corrective user turn (sender {@value StructuredOutput#SENDER}; it counts against
     * the iteration limit); the final reply stays in the chat.
     *
     * <pre>{@code
     * record Verdict(boolean approve, String reason) {}
     * Verdict v = agent.run("Review this change: ...", Verdict.class);
     * }</pre>
     *
     * @param userMessage what the user says; not blank
     * @param type the record to answer with
     * @param <T> the record type
     * @return the bound record
     * @throws StructuredOutputException when the answer still does not fit after a corrective
     *     turn, or the model refused or was cut off
     */
    public <T extends Record> T run(String userMessage, Class<T> type) {
        return run(userMessage, type, RunContext.root());
    }

    /**
     * Appends a user message and runs inside a caller's scope until the answer fits a record;
     * see {@link #run(String, Class)}.
     *
     * @param userMessage what the user says; not blank
     * @param type the record to answer with
     * @param context the caller's scope
     * @param <T> the record type
     * @return the bound record
     */
    public <T extends Record> T run(String userMessage, Class<T> type, RunContext context) {
        return run(List.of(userInput(userMessage)), type, context);
    }

    /**
     * Appends input messages and runs inside a caller's scope until the answer fits a record;
     * see {@link #run(String, Class)}.
     *
     * @param input the messages to append, in order
     * @param type the record to answer with
     * @param context the caller's scope
     * @param <T> the record type
     * @return the bound record
     */
    public <T extends Record> T run(List<Message> input, Class<T> type, RunContext context) {
        require(input, "input");
        require(type, "type");
        StructuredOutput<T> out = StructuredOutput.of(type);
        Run run = signalled(hold(conversation, input, require(context, "context"), false, out));
        if (run.structured() == null) {
            throw new StructuredOutputException(name, type, run.reply().text(),
                    List.of("the run ended without a final answer to bind (a stop tool or a middleware ended it)"), false);
        }
        return type.cast(run.structured());
    }

    /** Refuses a null argument of a run, naming it (and the way out, where there is one). */
    private <T> T require(T value, String what) {
        if (value == null) {
            throw new IllegalArgumentException("Agent.run " + what + " of '" + name + "' must not be null"
                    + (what.equals("context") ? "; use RunContext.root()" : ""));
        }
        return value;
    }

    private Message userInput(String userMessage) {
        if (userMessage == null || userMessage.isBlank()) {
            throw new IllegalArgumentException("Agent.run userMessage of '" + name + "' must not be null or blank");
        }
        return Message.user(userMessage);
    }

    /** The run, unless it paused: then its pause is thrown. */
    private static Run signalled(Run run) {
        if (run.paused() != null) {
            throw OutOfLine.call(Run::pauseSignal, run);
        }
        return run;
    }

    /**
     * Runs on a conversation, holding it for the run: in a context entered from the caller's (a
     * fresh root's for a null caller), or in one already entered. A flat run ({@link Run#flat()})
     * is driven from here, so that this frame is the only one of the agent's under each model
     * call (a waiting run's virtual thread keeps its frames on the heap). Everything before,
     * between and after the calls is called {@linkplain OutOfLine out of line}, so that no
     * compiler makes this frame, or its caller's, room for it.
     */
    Run hold(Conversation on, List<Message> input, RunContext caller, boolean ready,
            StructuredOutput<?> out) {
        Run run = OutOfLine.call(Agent::open, new Opening(this, on, input, caller, ready, out));
        try {
            if (!run.flat()) {
                return OutOfLine.call(Agent::walked, this, run);
            }
            ModelRequest request = OutOfLine.call(Run::first, run);
            while (request != null) {
                ModelResponse response;
                try {
                    response = run.completer().complete(request, run.deltas());
                } catch (ModelException e) {
                    request = OutOfLine.call(Run::refused, run, e);
                    continue;
                }
                request = OutOfLine.call(Run::after, run, response);
            }
            return run;
        } catch (RuntimeException | Error e) {
            OutOfLine.run(Runs::failed, run, e);
            throw e;
        } finally {
            OutOfLine.run(Agent::close, run, on);
        }
    }

    /** What a run opens with: who runs, on what, with what input, from which caller. */
    private record Opening(Agent agent, Conversation on, List<Message> input, RunContext caller, boolean ready,
            StructuredOutput<?> out) {}

    /**
     * Claims the conversation, enters and binds the run's context (from the caller's; a null caller
     * stands for a fresh {@link RunContext#root()} that nobody else holds) and starts the run; what
     * it took is given back when the start fails.
     */
    private static Run open(Opening o) {
        List<Message> input = List.copyOf(o.input);
        Agent agent = o.agent;
        RunContext context = o.ready ? o.caller
                : o.caller == null ? RunContext.enterFresh(agent.defaults) : o.caller.enter(agent.defaults);
        if (!o.on.begin()) {
            throw new IllegalStateException(o.on == agent.conversation
                    ? "agent '" + agent.name + "' is already running; an agent runs one run() at a time"
                    : "a run is already on the conversation; agent '" + agent.name
                            + "' runs a conversation one run at a time");
        }
        context.bind();
        try {
            return Runs.started(agent.start(o.on, context, input, o.out));
        } catch (RuntimeException | Error e) {
            context.unbind();
            o.on.end();
            throw e;
        }
    }

    /** A run that is not flat, walked down its links to its end. */
    private Run walked(Run run) {
        Runs.ended(run, Runs.walk(run, this::walk));
        return run;
    }

    /** Ends what a run held once it ends in any way: its skills' servers, its context's thread, the conversation. */
    private static void close(Run run, Conversation on) {
        try {
            Runs.stopped(run);
        } finally {
            run.context().unbind();
            on.end();
        }
    }

    /** The walk down a run's links; see {@link RunLinks}. */
    private Message walk(Run run) {
        return new RunLinks(this, run, 0).proceed();
    }

    /** What the loop needs for a run on a conversation; the agent's context management state there made at its first run. */
    private Runs.Start start(Conversation on, RunContext context, List<Message> input, StructuredOutput<?> out) {
        ContextManager contextManager = (ContextManager) on.state(spec);
        if (contextManager == null) {
            contextManager = new ContextManager(spec, on.chat());
            on.keep(spec, contextManager);
        }
        return new Runs.Start(spec, on.chat(), contextManager, context, input, out, RunApprover.of(context));
    }

    /**
     * How a {@code delegate} call starts a child: a fresh agent from the registry, in a run context
     * one level below the delegating run, on its own conversation; its pause comes back as a value.
     */
    private static final Children CHILDREN = new Spawner();

    /**
     * Ends a paused turn without running what waits: appends one tool message answering every
     * call of the turn in call order, with the result kept for a call that ran (in the
     * context's {@link Approvals}) and {@code tool 'x' was not run: <reason>} for every other
     * call, then forgets what the approvals kept for the turn (delegated children's chats
     * included). The model is not asked again; the next run continues from that message.
     *
     * @param context the scope the turn paused in (its approvals hold what ran)
     * @param reason why the calls did not run, for the model to read; not blank
     * @return true when the chat ended with a paused turn, false when there was nothing to end
     * @throws IllegalStateException when the agent is running
     */
    public boolean cancelPaused(RunContext context, String reason) {
        return cancelPaused(conversation, context, reason);
    }

    /**
     * Ends the paused turn of a conversation without running what waits; see
     * {@link #cancelPaused(RunContext, String)}.
     *
     * @param conversation the conversation whose chat ends with the paused turn
     * @param context the scope the turn paused in (its approvals hold what ran)
     * @param reason why the calls did not run, for the model to read; not blank
     * @return true when the chat ended with a paused turn, false when there was nothing to end
     * @throws IllegalStateException when a run is on the conversation
     */
    public boolean cancelPaused(Conversation conversation, RunContext context, String reason) {
        require(context, "context");
        require(conversation, "conversation");
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("Agent.cancelPaused reason of '" + name + "' must not be null or blank");
        }
        if (!conversation.begin()) {
            throw new IllegalStateException("agent '" + name + "' is running; a paused turn is cancelled between runs");
        }
        try {
            return Runs.cancelPaused(spec, conversation.chat(), context, RunApprover.of(context), reason);
        } finally {
            conversation.end();
        }
    }

    /**
     * Takes input for the next run: writes the system prompt first when the chat is empty (and
     * the prompt belongs in the chat), then appends the messages, each announced as a
     * {@link AgentEvent.MessageAdded}. {@code receive(input)} followed by {@code run()} does
     * what {@link #run(List)} does.
     *
     * @param input the messages, in order
     */
    @Override
    public void receive(List<Message> input) {
        Runs.receive(spec, conversation.chat(), input);
    }

    // ------------------------------------------------------------------ accessors

    @Override
    public String name() {
        return name;
    }

    @Override
    public Chat chat() {
        return conversation.chat();
    }

    /**
     * {@return the registry, or empty when none was set} The registry the agent delegates through, as its builder set
     * it. A delegated child built without one delegates through its parent's.
     */
    public Optional<Registry> registry() {
        return Optional.ofNullable(spec.registry());
    }

    /**
     * {@return the links} The agent's own links of the interception chain, in the order given: they follow the run
     * context's and reach the agent's delegated children.
     */
    public List<RunInterceptor> interceptors() {
        return spec.interceptors();
    }

    /**
     * {@return the links} The agent's middleware: links around its own runs only, after its interceptors, in the
     * order given.
     */
    public List<RunInterceptor> middleware() {
        return spec.middleware();
    }

    /**
     * {@return the conversation} The agent's own conversation: the one {@link #run(String)} and the other methods
     * without a conversation continue. It starts from the builder's {@linkplain Builder#chat chat}.
     */
    public Conversation conversation() {
        return conversation;
    }

    @Override
    public String toString() {
        return "Agent[" + name + "]";
    }

    // ------------------------------------------------------------------ tools a skill brings

    /**
     * Starts the tools a skill brings with it (an application's MCP servers or scripts declared
     * in the skill's folder) for one run; set with {@link Builder#skillTools}. The engine gives
     * its agents one that reads a skill folder's {@code tools.yaml}.
     *
     * <p>A run asks once per skill: when a {@code load_skill} of it is answered, and at the
     * run's start for the skills it is already following (those loaded earlier in the current
     * turn, as after a pause, and those without a description, which are always in the system
     * prompt). The tools started are offered from the next model call to the end of the run,
     * after the agent's own tools and the built-ins (which win on a name clash), under the
     * {@code allowed-tools} limit of the loaded skills and decided on by the run's approvals like
     * any other tool; {@link Started#stop()} is called once when the run ends, however it ends
     * (answered, paused, failed or cancelled). Each run starts its own.
     */
    @FunctionalInterface
    public interface SkillTools {
        /** Starts nothing: the agent's skills bring no tools. */
        SkillTools NONE = (skill, context) -> Started.NONE;

        /**
         * Starts the tools a skill brings, for one run. Called on the run's threads (two skills
         * loaded by one turn may be started at once). A tool that fails to start is reported in
         * {@link Started#problems()} while the others start; an exception thrown here is taken as
         * such a problem, and the run goes on without the skill's tools.
         *
         * @param skill the skill
         * @param context the run's context as a tool sees it (agent, run, session)
         * @return what was started, {@link Started#NONE} when the skill brings nothing
         */
        Started start(Skill skill, ToolContext context);

        /**
         * The tools started for one skill in one run.
         *
         * @param toolboxes the tools, searched in order
         * @param problems what did not start, one sentence each naming the skill's file and the
         *     server or tool; the {@code load_skill} result tells the model
         * @param stop stops what was started; called once, when the run ends
         */
        record Started(List<ToolBox> toolboxes, List<String> problems, Runnable stop) {
            /** Nothing started. */
            public static final Started NONE = new Started(List.of(), List.of(), () -> { });

            /** Checks and copies. */
            public Started {
                toolboxes = List.copyOf(toolboxes == null ? List.of() : toolboxes);
                problems = List.copyOf(problems == null ? List.of() : problems);
                if (stop == null) {
                    throw new IllegalArgumentException("SkillTools.Started stop must not be null");
                }
            }
        }
    }

    // ------------------------------------------------------------------ builder

    /** Collects an agent's settings. Only the name and the completer are required. */
    public static final class Builder extends AgentSettings<Builder> {
        private Builder(String name) {
            super(name);
        }

        /** The loop's view of the skill tools: an exception becomes the skill's one problem. */
        private static AgentSpec.SkillStarter brought(SkillTools tools) {
            if (tools == SkillTools.NONE) {
                return null;
            }
            return (skill, context) -> {
                SkillTools.Started started;
                try {
                    started = tools.start(skill, context);
                } catch (RuntimeException e) {
                    return new AgentSpec.Brought(List.of(), List.of("the tools of skill '" + skill.name()
                            + "' did not start: " + (e.getMessage() == null ? e.toString() : e.getMessage())), () -> { });
                }
                SkillTools.Started s = started == null ? SkillTools.Started.NONE : started;
                return new AgentSpec.Brought(s.toolboxes(), s.problems(), s.stop());
            };
        }

        /**
         * Builds the agent.
         *
         * @return the agent
         * @throws IllegalArgumentException when no completer was set, or a toolbox holds a tool
         *     named like a built-in ({@code load_skill}, {@code list_agents}, {@code delegate})
         */
        public Agent build() {
            // Out of line: the caller that builds an agent often runs it next, and its frame then
            // waits under every model call of the run with room for all that building needs.
            return OutOfLine.call(Builder::made, this);
        }

        private Agent made() {
            validate();
            return new Agent(new AgentSpec(name, settings(brought(skillTools), CHILDREN)), chat);
        }
    }
}
