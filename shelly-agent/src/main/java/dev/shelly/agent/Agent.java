package dev.shelly.agent;

import dev.shelly.agent.context.ContextPolicy;
import dev.shelly.agent.internal.FanOut;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.PriceTable;
import dev.shelly.skills.Skill;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolResults;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;

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
public final class Agent implements Runner {
    /**
     * How long cancelled tool calls and children may take to stop, unless the builder or the
     * run's context says otherwise.
     */
    public static final Duration DEFAULT_CANCEL_GRACE = FanOut.DEFAULT_GRACE;

    /**
     * The most model calls in one run unless the builder says otherwise: enough for a task with
     * a few rounds of tools, and a bound on a model that loops.
     */
    public static final int DEFAULT_MAX_ITERATIONS = 25;

    /** The iteration limit that means no limit: {@code maxIterations(Agent.UNLIMITED)}. */
    public static final int UNLIMITED = Integer.MAX_VALUE;

    /**
     * How deep delegation may go unless the builder says otherwise: an agent with a registry
     * delegates, and the agents it delegates to do the work themselves.
     */
    public static final int DEFAULT_MAX_DELEGATION_DEPTH = 1;

    /** The names of the built-in tools, which no toolbox may use. */
    static final Set<String> BUILTIN_TOOLS = Set.of(SkillTool.NAME, Orchestration.LIST_AGENTS, Orchestration.DELEGATE);

    /** Everything the builder set, as the agent keeps it. */
    private final AgentSpec spec;
    private final String name;
    /** The agent's own conversation, which the convenience methods without one run on. */
    private final Conversation conversation;
    /** A registry's mark, not run state: a factory may return an agent once (see {@link Registry#spawn}). */
    private final AtomicBoolean spawned = new AtomicBoolean();

    private Agent(Builder b) {
        this.spec = b.spec();
        this.name = spec.name();
        this.conversation = new Conversation(b.chat == null ? new Chat() : b.chat);
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
     * Runs the agent on its chat, as it is, in a fresh scope: {@code run(RunContext.root())}.
     *
     * @return the final message, as appended to the chat
     * @throws MaxIterationsException when the iteration limit is reached
     * @throws dev.shelly.modeladapter.ModelException when the model fails
     * @throws CancellationException when the run is interrupted
     * @throws RunPausedException when a tool-call hook paused the run
     * @throws IllegalStateException when the agent is already running
     */
    @Override
    public Message run() {
        return execute(conversation, List.of(), RunContext.root(), null).reply;
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
     * @throws RunPausedException when a tool-call hook paused the run
     * @throws IllegalStateException when the agent is already running
     */
    @Override
    public Message run(RunContext context) {
        return execute(conversation, List.of(), require(context, "context"), null).reply;
    }

    /**
     * Appends a user message (sender {@code user}) and runs: writes the system prompt first
     * when the chat is empty.
     *
     * @param userMessage what the user says; not blank
     * @return the final message
     * @throws IllegalArgumentException when the message is null or blank
     */
    public Message run(String userMessage) {
        return run(userMessage, RunContext.root());
    }

    /**
     * Appends a user message (sender {@code user}) and runs inside a caller's scope.
     *
     * @param userMessage what the user says; not blank
     * @param context the caller's scope
     * @return the final message
     * @throws IllegalArgumentException when the message is null or blank
     */
    public Message run(String userMessage, RunContext context) {
        return execute(conversation, List.of(userInput(userMessage)), require(context, "context"), null).reply;
    }

    /**
     * Appends input messages and runs: writes the system prompt first when the chat is empty,
     * so the prompt comes before the input.
     *
     * @param input the messages to append, in order
     * @return the final message
     */
    public Message run(List<Message> input) {
        return run(input, RunContext.root());
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
        return execute(conversation, List.copyOf(input), require(context, "context"), null).reply;
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
        return execute(on, List.of(userInput(userMessage)), require(context, "context"), null).reply;
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
        return execute(on, List.copyOf(input), require(context, "context"), null).reply;
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
        Run run = execute(conversation, List.copyOf(input), require(context, "context"), out);
        if (run.structured == null) {
            throw new StructuredOutputException(name, type, run.reply.text(),
                    List.of("the run ended without a final answer to bind (a stop tool or a middleware ended it)"), false);
        }
        return type.cast(run.structured);
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

    private Run execute(Conversation on, List<Message> input, RunContext caller, StructuredOutput<?> out) {
        if (!on.begin()) {
            throw new IllegalStateException(on == conversation
                    ? "agent '" + name + "' is already running; an agent runs one run() at a time"
                    : "a run is already on the conversation; agent '" + name + "' runs a conversation one run at a time");
        }
        Run run;
        try {
            run = ReactLoop.execute(this, on, caller, input, out);
        } finally {
            on.end();
        }
        if (run.paused != null) {
            throw run.pauseSignal();
        }
        return run;
    }

    /**
     * Runs this agent as a delegated child on its own conversation, in the scope its parent's
     * {@code delegate} call made: how the run ended, a pause as a value.
     */
    Outcome delegated(List<Message> input, RunContext scope) {
        if (!conversation.begin()) {
            throw new IllegalStateException("agent '" + name + "' is already running; an agent runs one run() at a time");
        }
        Run run;
        try {
            run = ReactLoop.execute(this, conversation, scope, input, null);
        } finally {
            conversation.end();
        }
        return run.paused != null ? run.paused : new Outcome.Answered(run.reply);
    }

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
            return ReactLoop.cancelPaused(this, conversation.chat(), context, reason);
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
        ReactLoop.receive(this, conversation.chat(), input);
    }

    /**
     * {@return the prompt's text} The system prompt this agent writes on an empty chat when it
     * runs at the top of a delegation tree (an agent that keeps its prompt out of the chat, or
     * whose chat holds messages but no opening system message, puts it in front of the chat on
     * every model call instead): {@code You are {name}. {description}}, then the sections
     * {@code ## Instructions}, {@code ## Project Context}, {@code ## Skills} (a skill with a
     * description listed by it under a line telling the model to {@code load_skill} it first, one
     * without inlined in full) and {@code ## Available Agents} ({@code - **{name}**: {description}}
     * for the registry's other agents, sorted by name, only when the agent
     * {@linkplain #canDelegate() can delegate}). Only non-empty sections appear, every text
     * stripped of surrounding white space; the shelly-agent README shows the whole template.
     */
    public String systemPrompt() {
        return SystemPrompt.build(name, spec.description(), spec.instructions(), spec.context(), spec.skills(),
                canDelegate() ? Run.otherAgents(spec.registry(), name) : List.of());
    }

    /**
     * Whether this agent may delegate when it runs at the top of a delegation tree: it has a
     * registry holding other agents, and a delegation limit above 0. Only then is it offered
     * {@code list_agents} and {@code delegate} and told about the other agents. Inside a run the
     * run's depth and the limits of the agents above count too (see {@link RunContext}).
     *
     * @return true when the agent can delegate
     */
    public boolean canDelegate() {
        return spec.registry() != null && spec.maxDelegationDepth() > 0 && !Run.otherAgents(spec.registry(), name).isEmpty();
    }

    /** Marks the agent as returned by a registry's factory; false when it was before. */
    boolean markSpawned() {
        return spawned.compareAndSet(false, true);
    }

    Registry registryOrNull() {
        return spec.registry();
    }

    /** The grace set on the builder, or null when the run's context decides. */
    Duration ownCancelGrace() {
        return spec.cancelGrace();
    }

    /**
     * The most characters of text a tool result keeps, for tools without a limit of their own.
     *
     * @return the limit; {@link ToolResults#DEFAULT_MAX_CHARS} unless the builder set one
     */
    public int maxToolResultChars() {
        return spec.maxToolResultChars();
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
     * {@return the conversation} The agent's own conversation: the one {@link #run(String)} and the other methods
     * without a conversation continue. It starts from the builder's {@linkplain Builder#chat chat}.
     */
    public Conversation conversation() {
        return conversation;
    }

    /** {@return the description; may be empty} What the agent does, as other agents see it. */
    public String description() {
        return spec.description();
    }

    /** {@return the instructions; may be empty} The agent's detailed instructions. */
    public String instructions() {
        return spec.instructions();
    }

    /** {@return the completer} The model the agent asks. */
    public Completer completer() {
        return spec.completer();
    }

    /** {@return the context; may be empty} The project context given to the agent. */
    public String context() {
        return spec.context();
    }

    /**
     * {@return the registry, or empty when none was set} The registry the agent delegates through, as its builder set
     * it. A delegated child built without one delegates through its parent's.
     */
    public Optional<Registry> registry() {
        return Optional.ofNullable(spec.registry());
    }

    /**
     * {@return the limit, at least 1} The maximum number of model calls in one run: {@value #DEFAULT_MAX_ITERATIONS}
     * unless set, {@link #UNLIMITED} for no limit.
     */
    public int maxIterations() {
        return spec.maxIterations();
    }

    /**
     * {@return the limit} How deep the delegation tree below a top-level agent may grow: an agent at depth {@code d}
     * may delegate while {@code d} is below this limit (and below the limit of every agent above it). {@value
     * #DEFAULT_MAX_DELEGATION_DEPTH} unless set; 0 means the agent cannot delegate.
     */
    public int maxDelegationDepth() {
        return spec.maxDelegationDepth();
    }

    /** {@return the skills} The skills the agent knows. */
    public List<Skill> skills() {
        return spec.skills();
    }

    /** {@return the toolboxes} The user's toolboxes (the built-in tools not included). */
    public List<ToolBox> toolboxes() {
        return spec.toolboxes();
    }

    /**
     * {@return the tool names; empty by default} The tools whose call ends a run once the turn's results are in the
     * chat.
     */
    public Set<String> stopTools() {
        return spec.stopTools();
    }

    /**
     * {@return true when the prompt goes into the chat} Whether the agent writes its system prompt into an empty chat
     * (true, the default) or puts it in front of the chat on every model call (false).
     */
    public boolean systemPromptInChat() {
        return spec.systemPromptInChat();
    }

    /**
     * {@return the listener, {@link AgentListener#NONE} when none is set} The listener that observes this agent's
     * events (and, through each run's context, its children's).
     */
    public AgentListener listener() {
        return spec.listener();
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
     * {@return the limit, or empty when there is none} How long one run of the agent may take; see
     * {@link Builder#timeout}.
     */
    public Optional<Duration> timeout() {
        return Optional.ofNullable(spec.timeout());
    }

    /** The toolboxes runs search: the user's, then those of the context strategies. */
    List<ToolBox> runToolboxes() {
        return spec.runToolboxes();
    }

    /** The definition of {@code load_skill}, or null without skills. */
    ToolDefinition skillTool() {
        return spec.skillTool();
    }

    /**
     * {@return the options} The options of every model call the agent makes (the provider's defaults fill what is not
     * set), prompt caching included unless turned off.
     */
    public ModelOptions options() {
        return spec.options();
    }

    /**
     * {@return the policy; {@link ContextPolicy#NONE} unless set} How the agent keeps its model calls inside the
     * model's window.
     */
    public ContextPolicy contextPolicy() {
        return spec.contextPolicy();
    }

    /**
     * {@return the price table; {@link PriceTable#defaults()} unless set} The prices that turn the agent's usage into
     * cost.
     */
    public PriceTable prices() {
        return spec.prices();
    }

    @Override
    public String toString() {
        return "Agent[" + name + "]";
    }

    // ------------------------------------------------------------------ builder

    /** Collects an agent's settings. Only the name and the completer are required. */
    public static final class Builder extends AgentSettings {
        private Builder(String name) {
            super(name);
        }

        /**
         * Builds the agent.
         *
         * @return the agent
         * @throws IllegalArgumentException when no completer was set, or a toolbox holds a tool
         *     named like a built-in ({@code load_skill}, {@code list_agents}, {@code delegate})
         */
        public Agent build() {
            validate();
            return new Agent(this);
        }
    }
}
