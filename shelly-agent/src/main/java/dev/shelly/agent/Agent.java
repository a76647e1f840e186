package dev.shelly.agent;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.agent.context.ContextPolicy;
import dev.shelly.agent.context.ContextStrategy;
import dev.shelly.agent.internal.FanOut;
import dev.shelly.agent.internal.Observers;
import dev.shelly.modeladapter.CacheHints;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTarget;
import dev.shelly.modeladapter.PriceTable;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.modeladapter.Usage;
import dev.shelly.skills.Skill;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolResults;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An agent: it reasons with a model, acts with tools, finds other agents in a {@link Registry}
 * and delegates work to them concurrently, follows {@link Skill}s, and runs inside its
 * {@link Middleware}.
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
 * (the context's, then the agent's interceptors and hooks, then its middleware, then the
 * observers). Inside the chain, {@link #run()} first answers the calls of a
 * {@linkplain RunPausedException paused} turn, if the chat ends with one, then runs the ReAct
 * loop:
 * <ol>
 *   <li>On an empty chat the agent first writes its system prompt (see {@link #systemPrompt()}),
 *       unless it keeps its prompt {@linkplain Builder#systemPromptInChat out of the chat}. The
 *       system prompt is always what the model sees first: on a chat that holds messages but
 *       does not open with a system message (say, a user message appended to {@link #chat()}
 *       before the run), the agent puts its prompt in front of the chat on every model call, as
 *       an agent that keeps its prompt out of the chat does. A chat that opens with a system
 *       message keeps that message as the prompt.
 *   <li>It asks the completer for a reply, offering the tools of its toolboxes, then
 *       {@code load_skill} when it has skills, then {@code list_agents} and {@code delegate} when
 *       it {@linkplain #canDelegate() can delegate} (a tool name is looked up in that order; the
 *       first toolbox holding it wins; no toolbox may hold a tool named like a built-in). With a
 *       {@linkplain Builder#contextPolicy context policy} the request holds the model's view of
 *       the chat as its strategies shaped it (see {@link dev.shelly.agent.context}). The
 *       request passes through the {@linkplain ModelCallHook model-call hooks} (the context's,
 *       then the agent's) and carries the agent's {@linkplain Builder#options options}, prompt
 *       caching included; the response passes back through them in reverse. The reply gets the
 *       agent's name as sender and is appended to the chat; its usage and cost are added to the
 *       run's context.
 *   <li>A reply without tool calls is the final answer and is returned (in a structured run,
 *       {@link #run(String, Class)}, once it binds to the record). Otherwise the
 *       {@linkplain ToolCallHook tool-call hooks} decide about every call, then a lone call runs
 *       on the run's own thread and two or more concurrently, each on its own virtual thread;
 *       their results are appended as one
 *       {@link Role#TOOL} message (sender: the agent's name) holding one result per call, in
 *       the order of the calls; then the loop asks again, unless the reply called one of the
 *       {@linkplain Builder#stopAtTools stop tools}: then that tool message ends the run.
 *   <li>After {@code maxIterations} replies ({@value #DEFAULT_MAX_ITERATIONS} unless set;
 *       {@link #UNLIMITED} for no limit) without a final answer the run fails with a
 *       {@link MaxIterationsException}.
 * </ol>
 *
 * <h2>Delegation</h2>
 * An agent with a registry delegates by default: a top-level agent may delegate
 * ({@link #DEFAULT_MAX_DELEGATION_DEPTH} level deep unless set), and the children it spawns work
 * alone. A child runs in its parent run's delegation scope, one level deeper; a child built
 * without a registry delegates through its parent's. An agent that cannot delegate (its depth has reached the limit, its limit is 0, or its
 * registry holds no other agent) is neither offered {@code list_agents} and {@code delegate} nor
 * told about other agents in its system prompt. A limit is an absolute depth, and every agent's
 * own limit counts: for two levels, both the top agent and the agents it delegates to need a
 * limit of 2.
 *
 * <h2>Cancellation</h2>
 * Interrupting the thread that runs the agent (or a {@link Middleware#timeout}) stops the run
 * promptly: the model call is abandoned, running tool calls and delegated children are
 * interrupted, and the run throws a {@link CancellationException} with the interrupt flag set.
 * Every tool call already in the chat still gets exactly one result: a cancelled one where the
 * call did not finish. Tools (two or more in a turn) and children that ignore their interrupt are
 * abandoned after the {@linkplain Builder#cancelGrace grace}; a lone tool call runs on the run's
 * own thread and holds the run until it returns (give such a tool
 * {@link dev.shelly.tools.Tool#withTimeout}).
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

    /** Agent names, as providers accept them in tool names and message sender names. */
    private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private static final Logger LOG = LoggerFactory.getLogger(Agent.class);

    private final String name;
    private final String description;
    private final String instructions;
    private final String context;
    private final Completer completer;
    private final int maxIterations;
    private final int maxDelegationDepth;
    private final List<Skill> skills;
    private final List<Middleware> middleware;
    private final List<ToolBox> toolboxes;
    private final Duration cancelGrace;
    private final int maxToolResultChars;
    private final Set<String> stopTools;
    private final boolean systemPromptInChat;
    /** The agent's own conversation, which the convenience methods without one run on. */
    private final Conversation conversation;
    private final ToolDefinition skillTool;
    private final Registry registry;
    private final AgentListener listener;
    private final List<ModelCallHook> modelCallHooks;
    private final List<ToolCallHook> toolCallHooks;
    /** The agent's own links of the chain, hooks included, in the order given; see {@link RunInterceptor}. */
    private final List<RunInterceptor> interceptors;
    /** The middleware as links around the run; the agent's alone, not inherited by children. */
    private final List<RunInterceptor> middlewareLinks;
    private final ModelOptions options;
    private final PriceTable prices;
    private final ContextPolicy contextPolicy;
    /** The toolboxes runs search: the user's, then those of the context strategies. */
    private final List<ToolBox> runToolboxes;
    /** Whether a registry's factory has returned this agent, which it may do once. */
    private final AtomicBoolean spawned = new AtomicBoolean();

    private Agent(Builder b) {
        this.name = b.name;
        this.description = b.description;
        this.instructions = b.instructions;
        this.context = b.context;
        this.completer = b.completer;
        this.maxIterations = b.maxIterations;
        this.maxDelegationDepth = b.maxDelegationDepth;
        this.skills = List.copyOf(b.skills);
        this.middleware = List.copyOf(b.middleware);
        this.toolboxes = List.copyOf(b.toolboxes);
        this.cancelGrace = b.cancelGrace;
        this.maxToolResultChars = b.maxToolResultChars;
        this.stopTools = Set.copyOf(b.stopTools);
        this.systemPromptInChat = b.systemPromptInChat;
        this.conversation = new Conversation(b.chat == null ? new Chat() : b.chat);
        this.skillTool = skills.isEmpty() ? null : SkillTool.definition(skills);
        this.registry = b.registry;
        this.listener = b.listener;
        this.modelCallHooks = List.copyOf(b.modelCallHooks);
        this.toolCallHooks = List.copyOf(b.toolCallHooks);
        this.interceptors = List.copyOf(b.interceptors);
        List<RunInterceptor> around = new ArrayList<>(middleware.size());
        for (int i = 0; i < middleware.size(); i++) {
            around.add(new Links.Around(middleware.get(i), i));
        }
        this.middlewareLinks = List.copyOf(around);
        ModelOptions opts = b.options;
        if (b.promptCaching && opts.cache() == null) {
            opts = opts.withCache(CacheHints.ON);
        }
        this.options = opts;
        this.prices = b.prices;
        this.contextPolicy = b.contextPolicy;
        this.runToolboxes = b.runToolboxes;
    }

    /** Says what is wrong with an agent name, or returns null when providers accept it. */
    static String invalidName(String name) {
        if (name != null && NAME.matcher(name).matches()) {
            return null;
        }
        return "agent name " + (name == null ? "null" : "'" + name + "'") + " is invalid: use 1 to 64 letters, "
                + "digits, '_' or '-' (providers accept only these in the tool and sender names an agent's name "
                + "appears in)";
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

    // ------------------------------------------------------------------ running

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
        return execute(conversation, List.of(), requireContext(context), null).reply;
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
        return execute(conversation, List.of(userInput(userMessage)), requireContext(context), null).reply;
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
        if (input == null) {
            throw new IllegalArgumentException("Agent.run input of '" + name + "' must not be null");
        }
        return execute(conversation, List.copyOf(input), requireContext(context), null).reply;
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
        return execute(requireConversation(conversation), List.of(userInput(userMessage)), requireContext(context), null)
                .reply;
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
        if (input == null) {
            throw new IllegalArgumentException("Agent.run input of '" + name + "' must not be null");
        }
        return execute(requireConversation(conversation), List.copyOf(input), requireContext(context), null).reply;
    }

    private Conversation requireConversation(Conversation conversation) {
        if (conversation == null) {
            throw new IllegalArgumentException("Agent.run conversation of '" + name + "' must not be null");
        }
        return conversation;
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
        if (input == null) {
            throw new IllegalArgumentException("Agent.run input of '" + name + "' must not be null");
        }
        if (type == null) {
            throw new IllegalArgumentException("Agent.run type of '" + name + "' must not be null");
        }
        StructuredOutput<T> out = StructuredOutput.of(type);
        Run run = execute(conversation, List.copyOf(input), requireContext(context), out);
        if (run.structured == null) {
            throw new StructuredOutputException(name, type, run.reply.text(),
                    List.of("the run ended without a final answer to bind (a stop tool or a middleware ended it)"), false);
        }
        return type.cast(run.structured);
    }

    private Message userInput(String userMessage) {
        if (userMessage == null || userMessage.isBlank()) {
            throw new IllegalArgumentException("Agent.run userMessage of '" + name + "' must not be null or blank");
        }
        return Message.user(userMessage);
    }

    private RunContext requireContext(RunContext context) {
        if (context == null) {
            throw new IllegalArgumentException("Agent.run context of '" + name + "' must not be null; use RunContext.root()");
        }
        return context;
    }

    private Run execute(Conversation on, List<Message> input, RunContext caller, StructuredOutput<?> out) {
        if (!on.begin()) {
            throw new IllegalStateException(on == conversation
                    ? "agent '" + name + "' is already running; an agent runs one run() at a time"
                    : "a run is already on the conversation; agent '" + name + "' runs a conversation one run at a time");
        }
        long start = System.nanoTime();
        try {
            Run run = new Run(this, on, caller.enter(this));
            try {
                run.emit(new AgentEvent.AgentStarted(run.source));
                AgentTools tools = new AgentTools(run, runToolboxes, skillTool);
                Message reply = run.chain.length == 0 ? new ReactLoop(run, tools, out).run(input)
                        : new Chains.Run(run.chain, 0, this, run.context, () -> new ReactLoop(run, tools, out).run(input))
                                .proceed();
                run.reply = reply;
                run.emit(new AgentEvent.AgentFinished(run.source, reply, since(start), run.context.usage(),
                        run.context.cost()));
                return run;
            } catch (RuntimeException | Error e) {
                run.emit(new AgentEvent.AgentFailed(run.source, e, since(start)));
                throw e;
            }
        } finally {
            on.end();
        }
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
        requireContext(context);
        if (conversation == null) {
            throw new IllegalArgumentException("Agent.cancelPaused conversation of '" + name + "' must not be null");
        }
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
        if (input == null) {
            throw new IllegalArgumentException("Agent.receive input of '" + name + "' must not be null");
        }
        for (int i = 0; i < input.size(); i++) {
            if (input.get(i) == null) {
                throw new IllegalArgumentException("Agent.receive input[" + i + "] of '" + name + "' must not be null");
            }
        }
        List<Message> added = new ArrayList<>(input.size() + 1);
        Chat chat = conversation.chat();
        if (systemPromptInChat && chat.isEmpty()) {
            added.add(Message.system(systemPrompt()));
        }
        added.addAll(input);
        AgentEvent.Source source = new AgentEvent.Source(name, null, 0);
        for (Message m : added) {
            chat.append(m);
            if (listener != AgentListener.NONE) {
                Run.emitQuietly(listener, name, new AgentEvent.MessageAdded(source, m));
            }
        }
    }

    /**
     * The system prompt this agent writes on an empty chat when it runs at the top of a
     * delegation tree (an agent that keeps its prompt out of the chat puts it in front of the
     * chat on every model call instead, as does an agent whose chat holds messages but no opening
     * system message):
     *
     * <pre>
     * You are {name}. {description}
     *
     * ## Instructions
     *
     * {instructions}
     *
     * ## Project Context
     *
     * {context}
     *
     * ## Skills
     *
     * Call load_skill with a skill's name to read its full procedure before you follow it.
     *
     * ### {skill name}
     *
     * {skill description, or its content when it has none}
     *
     * ## Available Agents
     *
     * - **{name}**: {description}
     * </pre>
     *
     * Only non-empty sections appear; a skill with a description is listed by it and loaded on
     * demand with {@code load_skill} (the line about it appears only then), a skill without one is
     * inlined in full; the agents are the registry's entries (sorted by name)
     * other than this agent, listed only when the agent {@linkplain #canDelegate() can delegate};
     * every text is stripped of surrounding white space. A delegated child's prompt lists the
     * agents only when it may delegate further.
     *
     * @return the prompt's text
     */
    public String systemPrompt() {
        return SystemPrompt.build(name, description, instructions, context, skills,
                canDelegate() ? Run.otherAgents(registry, name) : List.of());
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
        return registry != null && maxDelegationDepth > 0 && !Run.otherAgents(registry, name).isEmpty();
    }

    // ------------------------------------------------------------------ package-private plumbing

    /** Called by a Registry on a freshly built agent; refuses an agent its factory returned before. */
    void markSpawned() {
        if (!spawned.compareAndSet(false, true)) {
            throw new IllegalStateException("the factory of agent '" + name + "' returned an agent it had returned "
                    + "before; a factory must build a fresh agent on every call");
        }
    }

    Registry registryOrNull() {
        return registry;
    }

    /** The grace set on the builder, or null when the run's context decides. */
    Duration ownCancelGrace() {
        return cancelGrace;
    }

    /**
     * The most characters of text a tool result keeps, for tools without a limit of their own.
     *
     * @return the limit; {@link ToolResults#DEFAULT_MAX_CHARS} unless the builder set one
     */
    public int maxToolResultChars() {
        return maxToolResultChars;
    }

    static Duration since(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
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
     * The agent's own conversation: the one {@link #run(String)} and the other methods without a
     * conversation continue. It starts from the builder's {@linkplain Builder#chat chat}.
     *
     * @return the conversation
     */
    public Conversation conversation() {
        return conversation;
    }

    /**
     * What the agent does, as other agents see it.
     *
     * @return the description; may be empty
     */
    public String description() {
        return description;
    }

    /**
     * The agent's detailed instructions.
     *
     * @return the instructions; may be empty
     */
    public String instructions() {
        return instructions;
    }

    /**
     * The model the agent asks.
     *
     * @return the completer
     */
    public Completer completer() {
        return completer;
    }

    /**
     * The project context given to the agent.
     *
     * @return the context; may be empty
     */
    public String context() {
        return context;
    }

    /**
     * The registry the agent delegates through, as its builder set it. A delegated child built
     * without one delegates through its parent's.
     *
     * @return the registry, or empty when none was set
     */
    public Optional<Registry> registry() {
        return Optional.ofNullable(registry);
    }

    /**
     * The maximum number of model calls in one run: {@value #DEFAULT_MAX_ITERATIONS} unless set,
     * {@link #UNLIMITED} for no limit.
     *
     * @return the limit, at least 1
     */
    public int maxIterations() {
        return maxIterations;
    }

    /**
     * How deep the delegation tree below a top-level agent may grow: an agent at depth
     * {@code d} may delegate while {@code d} is below this limit (and below the limit of every
     * agent above it). {@value #DEFAULT_MAX_DELEGATION_DEPTH} unless set; 0 means the agent
     * cannot delegate.
     *
     * @return the limit
     */
    public int maxDelegationDepth() {
        return maxDelegationDepth;
    }

    /**
     * The skills the agent knows.
     *
     * @return the skills
     */
    public List<Skill> skills() {
        return skills;
    }

    /**
     * The user's toolboxes (the built-in tools not included).
     *
     * @return the toolboxes
     */
    public List<ToolBox> toolboxes() {
        return toolboxes;
    }

    /**
     * The tools whose call ends a run once the turn's results are in the chat.
     *
     * @return the tool names; empty by default
     */
    public Set<String> stopTools() {
        return stopTools;
    }

    /**
     * Whether the agent writes its system prompt into an empty chat (true, the default) or puts
     * it in front of the chat on every model call (false).
     *
     * @return true when the prompt goes into the chat
     */
    public boolean systemPromptInChat() {
        return systemPromptInChat;
    }

    /**
     * The listener that observes this agent's events (and, through each run's context, its
     * children's).
     *
     * @return the listener, {@link AgentListener#NONE} when none is set
     */
    public AgentListener listener() {
        return listener;
    }

    /**
     * The agent's own model-call hooks; a run's context adds its own before them.
     *
     * @return the hooks, in the order added
     */
    public List<ModelCallHook> modelCallHooks() {
        return modelCallHooks;
    }

    /**
     * The agent's own tool-call hooks; a run's context adds its own before them.
     *
     * @return the hooks, in the order added
     */
    public List<ToolCallHook> toolCallHooks() {
        return toolCallHooks;
    }

    /**
     * The agent's own links of the interception chain, its hooks included, in the order given;
     * a run's context puts its own before them.
     *
     * @return the links
     */
    public List<RunInterceptor> interceptors() {
        return interceptors;
    }

    /** The middleware as links around this agent's runs (not inherited by delegated children). */
    List<RunInterceptor> middlewareLinks() {
        return middlewareLinks;
    }

    /**
     * The options of every model call the agent makes (the provider's defaults fill what is not
     * set), prompt caching included unless turned off.
     *
     * @return the options
     */
    public ModelOptions options() {
        return options;
    }

    /**
     * How the agent keeps its model calls inside the model's window.
     *
     * @return the policy; {@link ContextPolicy#NONE} unless set
     */
    public ContextPolicy contextPolicy() {
        return contextPolicy;
    }

    /**
     * The prices that turn the agent's usage into cost.
     *
     * @return the price table; {@link PriceTable#defaults()} unless set
     */
    public PriceTable prices() {
        return prices;
    }

    @Override
    public String toString() {
        return "Agent[" + name + "]";
    }

    // ------------------------------------------------------------------ builder

    /** Collects an agent's settings. Only the name and the completer are required. */
    public static final class Builder {
        private final String name;
        private String description = "";
        private String instructions = "";
        private String context = "";
        private Completer completer;
        private int maxIterations = DEFAULT_MAX_ITERATIONS;
        private int maxDelegationDepth = DEFAULT_MAX_DELEGATION_DEPTH;
        private final List<Skill> skills = new ArrayList<>();
        private final List<Middleware> middleware = new ArrayList<>();
        private final List<ToolBox> toolboxes = new ArrayList<>();
        private Duration cancelGrace;
        private final List<ModelCallHook> modelCallHooks = new ArrayList<>();
        private final List<ToolCallHook> toolCallHooks = new ArrayList<>();
        private final List<RunInterceptor> interceptors = new ArrayList<>();
        private ModelOptions options = ModelOptions.NONE;
        private boolean promptCaching = true;
        private PriceTable prices;
        private int maxToolResultChars = ToolResults.DEFAULT_MAX_CHARS;
        private final Set<String> stopTools = new LinkedHashSet<>();
        private boolean systemPromptInChat = true;
        private Chat chat;
        private Registry registry;
        private AgentListener listener = AgentListener.NONE;
        private ContextPolicy contextPolicy = ContextPolicy.NONE;
        private List<ToolBox> runToolboxes;

        private Builder(String name) {
            String invalid = invalidName(name);
            if (invalid != null) {
                throw new IllegalArgumentException(invalid);
            }
            this.name = name;
        }

        /**
         * What the agent does: the second half of the system prompt's first line, and what
         * other agents are told about it.
         *
         * @param value the description
         * @return this builder
         */
        public Builder description(String value) {
            this.description = requireText(value, "description");
            return this;
        }

        /**
         * Detailed instructions: the system prompt's {@code ## Instructions} section.
         *
         * @param value the instructions
         * @return this builder
         */
        public Builder instructions(String value) {
            this.instructions = requireText(value, "instructions");
            return this;
        }

        /**
         * Project context: the system prompt's {@code ## Project Context} section.
         *
         * @param value the context
         * @return this builder
         */
        public Builder context(String value) {
            this.context = requireText(value, "context");
            return this;
        }

        /**
         * The model.
         *
         * @param value the completer
         * @return this builder
         */
        public Builder completer(Completer value) {
            if (value == null) {
                throw new IllegalArgumentException("Agent '" + name + "' completer must not be null");
            }
            this.completer = value;
            return this;
        }

        /**
         * The maximum number of model calls in one run; {@link Agent#DEFAULT_MAX_ITERATIONS}
         * unless set. A run that reaches it without a final answer fails with a
         * {@link MaxIterationsException}. {@link Agent#UNLIMITED} removes the limit.
         *
         * @param value the limit: at least 1, or {@link Agent#UNLIMITED}
         * @return this builder
         * @throws IllegalArgumentException when the value is below 1
         */
        public Builder maxIterations(int value) {
            if (value < 1) {
                throw new IllegalArgumentException("Agent '" + name + "' maxIterations must be at least 1, was " + value
                        + "; use Agent.UNLIMITED for no limit");
            }
            this.maxIterations = value;
            return this;
        }

        /**
         * How deep the delegation tree may grow below this agent;
         * {@link Agent#DEFAULT_MAX_DELEGATION_DEPTH} unless set, 0 means the agent cannot
         * delegate. Delegation needs a {@linkplain #registry registry} too. See
         * {@link Agent#maxDelegationDepth()}.
         *
         * @param value the limit
         * @return this builder
         */
        public Builder maxDelegationDepth(int value) {
            if (value < 0) {
                throw new IllegalArgumentException(
                        "Agent '" + name + "' maxDelegationDepth must not be negative, was " + value);
            }
            this.maxDelegationDepth = value;
            return this;
        }

        /**
         * Adds skills: shown in the system prompt and loadable with {@code load_skill}.
         *
         * @param more the skills
         * @return this builder
         * @throws IllegalArgumentException when two skills share a name
         */
        public Builder skills(List<Skill> more) {
            if (more == null) {
                throw new IllegalArgumentException("Agent '" + name + "' skills must not be null");
            }
            for (Skill s : more) {
                if (s == null) {
                    throw new IllegalArgumentException("Agent '" + name + "' skills must not hold null");
                }
                for (Skill known : skills) {
                    if (known.name().equals(s.name())) {
                        throw new IllegalArgumentException("Agent '" + name + "' has two skills named '" + s.name() + "'");
                    }
                }
                skills.add(s);
            }
            return this;
        }

        /**
         * Adds middleware; the first added is the outermost.
         *
         * @param more the middleware
         * @return this builder
         */
        public Builder middleware(Middleware... more) {
            for (Middleware m : requireAll(more, "middleware")) {
                middleware.add(m);
            }
            return this;
        }

        /**
         * Adds toolboxes; a tool name is looked up in the order they were added.
         *
         * @param more the toolboxes
         * @return this builder
         */
        public Builder toolboxes(ToolBox... more) {
            for (ToolBox t : requireAll(more, "toolboxes")) {
                toolboxes.add(t);
            }
            return this;
        }

        /**
         * The registry to delegate through: while the agent {@linkplain Agent#canDelegate() can
         * delegate} it is offered {@code list_agents} and {@code delegate} and told about the
         * registry's other agents.
         *
         * @param value the registry
         * @return this builder
         */
        public Builder registry(Registry value) {
            if (value == null) {
                throw new IllegalArgumentException("Agent '" + name + "' registry must not be null");
            }
            this.registry = value;
            return this;
        }

        /**
         * The chat to work on, for example one shared with other agents; by default a new one.
         *
         * @param value the chat
         * @return this builder
         */
        public Builder chat(Chat value) {
            if (value == null) {
                throw new IllegalArgumentException("Agent '" + name + "' chat must not be null");
            }
            this.chat = value;
            return this;
        }

        /**
         * The listener for this agent's events (and, by inheritance, its children's).
         *
         * @param value the listener
         * @return this builder
         */
        public Builder listener(AgentListener value) {
            if (value == null) {
                throw new IllegalArgumentException("Agent '" + name + "' listener must not be null");
            }
            this.listener = value;
            return this;
        }

        /**
         * How long cancelled tool calls and delegated children may take to stop before the
         * agent abandons them (their results then say they were cancelled). Unless set, the run's
         * context decides ({@link RunContext#cancelGrace()}, by default
         * {@link Agent#DEFAULT_CANCEL_GRACE}). Well-behaved tools stop at once.
         *
         * @param value the grace
         * @return this builder
         */
        public Builder cancelGrace(Duration value) {
            if (value == null || value.isNegative()) {
                throw new IllegalArgumentException("Agent '" + name + "' cancelGrace must not be null or negative");
            }
            this.cancelGrace = value;
            return this;
        }

        /**
         * The most characters of text one tool result keeps; the rest is cut, and a note the
         * model reads says how much and how to ask for less (see {@link ToolResults}). A tool's
         * own limit ({@link dev.shelly.tools.Tool#withMaxResultChars}) wins. Default
         * {@link ToolResults#DEFAULT_MAX_CHARS}.
         *
         * @param value the limit; at least 1
         * @return this builder
         */
        public Builder maxToolResultChars(int value) {
            if (value < 1) {
                throw new IllegalArgumentException("Agent '" + name + "' maxToolResultChars must be at least 1, was " + value);
            }
            this.maxToolResultChars = value;
            return this;
        }

        /**
         * Tools whose call ends the run: when a reply calls one of them, the turn's tool calls
         * run as usual, their results are appended, and the run ends with that tool message as
         * its final message instead of asking the model again. A hand-off group uses this for its
         * {@code transfer_to_*} tools; it suits any tool whose result is the answer.
         *
         * @param names the tool names; adds to those given before
         * @return this builder
         */
        public Builder stopAtTools(String... names) {
            for (String n : requireAll(names, "stopAtTools")) {
                if (n.isBlank()) {
                    throw new IllegalArgumentException("Agent '" + name + "' stopAtTools must not hold a blank name");
                }
                stopTools.add(n);
            }
            return this;
        }

        /**
         * Whether the agent writes its system prompt into an empty chat (true, the default), or
         * keeps it out of the chat and puts it in front of the chat's messages on every model
         * call (false). The second suits agents that take turns on one shared chat, as in a
         * hand-off group: each speaks with its own instructions, and the shared chat holds only
         * the conversation (any system message it has follows the agent's prompt).
         *
         * @param value whether the prompt goes into the chat
         * @return this builder
         */
        public Builder systemPromptInChat(boolean value) {
            this.systemPromptInChat = value;
            return this;
        }

        /**
         * Adds model-call hooks, run around every model call of the agent after those of the
         * run's context; see {@link ModelCallHook} for the order.
         *
         * @param more the hooks
         * @return this builder
         */
        public Builder modelCallHooks(ModelCallHook... more) {
            for (ModelCallHook h : requireAll(more, "modelCallHooks")) {
                modelCallHooks.add(h);
                interceptors.add(new Links.ModelHook(h, modelCallHooks.size()));
            }
            return this;
        }

        /**
         * Adds tool-call hooks, asked about every tool call of the agent after those of the
         * run's context; see {@link ToolCallHook} for the order.
         *
         * @param more the hooks
         * @return this builder
         */
        public Builder toolCallHooks(ToolCallHook... more) {
            for (ToolCallHook h : requireAll(more, "toolCallHooks")) {
                toolCallHooks.add(h);
                interceptors.add(new Links.ToolHook(h, toolCallHooks.size()));
            }
            return this;
        }

        /**
         * Adds links to the interception chain of the agent's runs: they follow the links of the
         * run's context, in the order given (hooks given to this builder are links at their place
         * among them), and reach the agent's delegated children. See {@link RunInterceptor}.
         *
         * @param more the links
         * @return this builder
         */
        public Builder interceptors(RunInterceptor... more) {
            interceptors.addAll(List.of(requireAll(more, "interceptors")));
            return this;
        }

        /**
         * The options of every model call (tool choice, response format, max tokens,
         * temperature, ...); what is not set here falls back to the provider's defaults. A cache
         * set here wins over {@link #promptCaching}.
         *
         * @param value the options
         * @return this builder
         */
        public Builder options(ModelOptions value) {
            if (value == null) {
                throw new IllegalArgumentException("Agent '" + name + "' options must not be null; use ModelOptions.NONE");
            }
            this.options = value;
            return this;
        }

        /**
         * Whether the agent asks for prompt caching ({@link CacheHints#ON}: the system prompt
         * and tools, and the conversation's tail) on every model call; on by default. A provider
         * without explicit caching ignores the hints. {@link #options} with a cache set wins.
         *
         * @param value false to send no cache hints
         * @return this builder
         */
        public Builder promptCaching(boolean value) {
            this.promptCaching = value;
            return this;
        }

        /**
         * The prices that turn usage into cost ({@link RunContext#cost()},
         * {@link AgentEvent.AgentFinished#cost()}); {@link PriceTable#defaults()} unless set.
         *
         * @param value the price table
         * @return this builder
         */
        public Builder prices(PriceTable value) {
            if (value == null) {
                throw new IllegalArgumentException("Agent '" + name + "' prices must not be null; use PriceTable.empty()");
            }
            this.prices = value;
            return this;
        }

        /**
         * How the agent keeps its model calls inside the model's window: the strategies that
         * shape the model's view of the chat before every call (compaction, trimming, offloading,
         * budgets, ...). {@link ContextPolicy#NONE} (the default) sends the whole chat. The
         * strategies act before the model-call hooks, on the view only: the chat keeps every
         * message plus the summaries and notes they add. A strategy's tools (such as
         * {@code recall}) are offered after the toolboxes'.
         *
         * @param value the policy
         * @return this builder
         */
        public Builder contextPolicy(ContextPolicy value) {
            if (value == null) {
                throw new IllegalArgumentException("Agent '" + name + "' contextPolicy must not be null; use ContextPolicy.NONE");
            }
            this.contextPolicy = value;
            return this;
        }

        /**
         * Builds the agent.
         *
         * @return the agent
         * @throws IllegalArgumentException when no completer was set, or a toolbox holds a tool
         *     named like a built-in ({@code load_skill}, {@code list_agents}, {@code delegate})
         */
        public Agent build() {
            if (completer == null) {
                throw new IllegalArgumentException("Agent '" + name + "' needs a completer");
            }
            String clash = AgentTools.builtinClash(name, toolboxes);
            if (clash != null) {
                throw new IllegalArgumentException(clash);
            }
            if (prices == null) {
                prices = PriceTable.defaults();
            }
            runToolboxes = new ArrayList<>(toolboxes);
            for (ContextStrategy strategy : contextPolicy.strategies()) {
                Optional<ToolBox> box = strategy.tools();
                if (box.isEmpty()) {
                    continue;
                }
                for (ToolDefinition d : box.get().definitions()) {
                    for (int i = 0; i < runToolboxes.size(); i++) {
                        if (runToolboxes.get(i).contains(d.name())) {
                            throw new IllegalArgumentException("toolbox " + (i + 1) + " of agent '" + name + "' holds a tool "
                                    + "named '" + d.name() + "', which the context strategy '" + strategy.name()
                                    + "' offers; rename the tool");
                        }
                    }
                }
                runToolboxes.add(box.get());
            }
            runToolboxes = List.copyOf(runToolboxes);
            return new Agent(this);
        }

        private String requireText(String value, String field) {
            if (value == null) {
                throw new IllegalArgumentException("Agent '" + name + "' " + field + " must not be null");
            }
            return value;
        }

        private <T> T[] requireAll(T[] values, String field) {
            if (values == null) {
                throw new IllegalArgumentException("Agent '" + name + "' " + field + " must not be null");
            }
            for (T v : values) {
                if (v == null) {
                    throw new IllegalArgumentException("Agent '" + name + "' " + field + " must not hold null");
                }
            }
            return values;
        }
    }
}
