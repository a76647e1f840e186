package dev.shelly.agent.internal;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.AgentListener;
import dev.shelly.agent.Registry;
import dev.shelly.agent.RunContext;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.agent.RunObserver;
import dev.shelly.agent.RunPausedException;
import dev.shelly.agent.StructuredOutput;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.modeladapter.Usage;
import dev.shelly.tools.ToolContext;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Internal, not API. One run of an agent: its description, its conversation's chat and context
 * state, its context, its event source and links, and the state that lives as long as the run.
 * What the loop, the tool turn, {@code delegate} and the built-in tools use.
 */
public final class Run implements ContextRun {
    private static final Logger LOG = LoggerFactory.getLogger(Run.class);

    final AgentSpec agent;
    private final Chat chat;
    final ContextManager contextManager;
    final RunContext context;
    private AgentEvent.Source source;
    final boolean observed;
    final boolean canDelegate;
    /**
     * The run's interception chain, outermost first: context management (model calls) and the
     * approvals' answers (decisions), its context's links (the context's, the agent's
     * interceptors and middleware), the observers, then a structured run's check of its answer.
     * Made when first walked ({@link #chain()}): a run whose chain holds only context management
     * may never walk it.
     */
    private volatile RunInterceptor[] chain;
    /**
     * Whether decisions and tool calls pass the chain: false when only context management is on
     * it (no link, observer, approvals or check), and the turn decides and calls the tools
     * straight.
     */
    final boolean intercepts;
    /** Whether the run's chain logs it at DEBUG ({@link DebugLog}), decided when the run starts. */
    private final boolean debug;
    /** The run's approvals, or null when its context has none. */
    final Approver approver;
    /** The response format a structured run asks for, or null. */
    final StructuredOutput<?> out;
    /** The loop, once the run has started it. */
    ReactLoop loop;
    private ToolContext toolContext;
    /** The run's final message, once it has one. */
    Message reply;
    /** The pause the loop ended with, as a value; null while the run has not paused. */
    Outcome.Paused paused;
    private RunPausedException pauseSignal;
    /** The bound record of a structured run, once it has one. */
    Object structured;
    /** The response to the run's latest model call, as the links left it. */
    ModelResponse lastResponse;
    /** The system prompt the loop puts in front of the chat for the next call, or null when the chat opens with it. */
    Message prompt;
    /** The request context management shaped for the latest model call, before the other links. */
    ModelRequest shaped;
    /** The tools the latest call's view offers when a strategy changed them, else null. */
    List<ToolDefinition> scoped;
    /** When the latest model call was sent (its last attempt, after an overflow). */
    long callStart;
    /** When the run started, for time budgets. */
    final long startNanos = System.nanoTime();

    Run(Runs.Start start) {
        this.agent = start.spec();
        this.chat = start.chat();
        this.contextManager = start.contextManager();
        this.context = start.context();
        this.approver = start.approver();
        this.out = start.out();
        this.observed = context.listener() != AgentListener.NONE;
        this.debug = DebugLog.on(context);
        this.intercepts = approver != null || out != null || !context.interceptors().isEmpty()
                || !context.observers().isEmpty() || debug;
        Registry registry = context.registry().orElse(null);
        this.canDelegate = registry != null && context.depth() < context.delegationLimit()
                && !agent.targets(registry).isEmpty();
    }

    /** The run's interception chain, outermost first; see {@link #chain}. */
    RunInterceptor[] chain() {
        RunInterceptor[] made = chain;
        if (made == null) {
            made = chain(context.interceptors(), context.observers());
            assert (made.length > 1) == intercepts : "run '" + name() + "': intercepts does not match its chain";
            chain = made;
        }
        return made;
    }

    private RunInterceptor[] chain(List<RunInterceptor> links, List<RunObserver> observers) {
        DebugLog debug = this.debug ? DebugLog.of(name(), context) : null;
        int size = 1 + (approver == null ? 0 : 1) + (debug == null ? 0 : 1) + links.size() + (observers.isEmpty() ? 0 : 1)
                + (out == null ? 0 : 1);
        RunInterceptor[] all = new RunInterceptor[size];
        int at = 0;
        all[at++] = new Links.Shaping(this);
        if (approver != null) {
            all[at++] = new Links.Answers(this);
        }
        if (debug != null) {
            all[at++] = debug;
        }
        for (RunInterceptor i : links) {
            all[at++] = i;
        }
        if (!observers.isEmpty()) {
            all[at++] = new Links.Observed(this, observers);
        }
        if (out != null) {
            all[at] = new Links.Structured(this);
        }
        return all;
    }

    // ------------------------------------------------------------------ for the run chain's walk

    /**
     * {@return the run's context}
     */
    public RunContext context() {
        return context;
    }

    /**
     * {@return the chat the run works on}
     */
    public Chat chat() {
        return chat;
    }

    /**
     * {@return the links of the run's chain, outermost first}
     */
    public List<RunInterceptor> links() {
        return List.of(chain());
    }

    /**
     * The place of a link of the run's chain among its context's links, from 1, for messages
     * (the links the run adds itself are not counted).
     *
     * @param index the link's index in {@link #links()}
     * @return its place
     */
    public int place(int index) {
        return Chains.place(chain(), index);
    }

    /**
     * Whether the run is flat: no link on its chain but context management, and no time limit.
     * Its loop is then driven by the frame that holds the run, with no chain object: it asks
     * {@link #first()} for a request, calls the {@link #completer()} with it, and asks
     * {@link #after} the reply for the next, until there is none.
     *
     * @return true when flat
     */
    public boolean flat() {
        return !intercepts && agent.timeout() == null;
    }

    /**
     * The flat loop's first request: the paused turn and the input taken up, then the call
     * shaped and announced.
     *
     * @return the request, or null when the run ended before it (its {@link #reply()} is set and
     *     its end announced)
     */
    public ModelRequest first() {
        return endedIfNull(loop.first());
    }

    /**
     * What the flat loop does with a reply: appended, counted and its tool calls run; then the
     * next request.
     *
     * @param response the completer's response, not yet checked
     * @return the next request, or null when the run ended (its {@link #reply()} is set and its
     *     end announced)
     */
    public ModelRequest after(ModelResponse response) {
        return endedIfNull(loop.after(response));
    }

    /** The flat loop's next request; none means the run ended, which is then announced. */
    private ModelRequest endedIfNull(ModelRequest next) {
        if (next == null) {
            Runs.ended(this, reply);
        }
        return next;
    }

    /**
     * The flat loop's request shaped again after the model refused it as too long.
     *
     * @param e the refusal
     * @return the request to send instead
     * @throws ModelException e itself, when the model refused for another reason, or the refusal
     *     context management gives when it cannot make room
     */
    public ModelRequest refused(ModelException e) {
        return loop.refused(e);
    }

    /** {@return the completer the run's model calls go to} */
    public Completer completer() {
        return agent.completer();
    }

    /** {@return where the model's stream deltas go for the flat loop's calls} */
    public StreamListener deltas() {
        return loop.deltas();
    }

    /**
     * The innermost of the run chain: the paused turn and the input the first time, then the
     * loop, going on from the chat.
     *
     * @return the run's final message, or the reply whose calls wait
     */
    public Message proceed() {
        return loop.run();
    }

    /**
     * {@return the pause the run ended with, or null}
     */
    public Outcome.Paused paused() {
        return paused;
    }

    /**
     * {@return the run's final message, or the reply whose calls wait}
     */
    public Message reply() {
        return reply;
    }

    /**
     * {@return the bound record of a structured run, or null when the run did not bind one}
     */
    public Object structured() {
        return structured;
    }

    /**
     * The public signal of the run's pause, made once: the observers end the run's observation
     * with it, its {@link AgentEvent.AgentFailed} carries it, and the agent's public run methods
     * throw it.
     *
     * @return the signal
     */
    public RunPausedException pauseSignal() {
        if (pauseSignal == null) {
            pauseSignal = paused.signal();
        }
        return pauseSignal;
    }

    // ------------------------------------------------------------------ for the loop

    String name() {
        return agent.name();
    }

    /** The agents of the run's registry this one may delegate to, sorted by name. */
    List<Registry.Entry> otherAgents() {
        Registry registry = context.registry().orElse(null);
        return registry == null ? List.of() : agent.targets(registry);
    }

    /** The run's one tool context, made at its first tool call. Touched by the running thread only. */
    ToolContext toolContext() {
        if (toolContext == null) {
            toolContext = new ToolContext(context.agent().orElse(null), context.parentAgent().orElse(null),
                    context.depth(), context.runId().orElse(null), context.parentRunId().orElse(null),
                    context.sessionId().orElse(null), context.values().with(RunContext.KEY, context));
        }
        return toolContext;
    }

    /** Appends to the chat and announces it; returns the message's index in the chat. */
    @Override
    public int append(Message message) {
        int size = chat.append(message);
        if (observed) {
            emit(new AgentEvent.MessageAdded(source(), message));
        }
        return size - 1;
    }

    /** Appends messages in one append and announces each. */
    void appendAll(Message... messages) {
        chat.append(messages);
        if (observed) {
            for (Message m : messages) {
                emit(new AgentEvent.MessageAdded(source(), m));
            }
        }
    }

    void appendAll(List<Message> messages) {
        chat.append(messages);
        if (observed) {
            for (Message m : messages) {
                emit(new AgentEvent.MessageAdded(source(), m));
            }
        }
    }

    @Override
    public void emit(AgentEvent event) {
        if (observed) {
            emitQuietly(context.listener(), agent.name(), event);
        }
    }

    /**
     * {@return where the run's events come from} Made at the first event: a run nobody watches
     * makes none. Two threads of the run may both make it; they make equal records.
     */
    @Override
    public AgentEvent.Source source() {
        AgentEvent.Source known = source;
        if (known == null) {
            known = new AgentEvent.Source(agent.name(), context.parentAgent().orElse(null), context.depth(),
                    context.runId().orElse(null), context.parentRunId().orElse(null), context.sessionId().orElse(null));
            source = known;
        }
        return known;
    }

    @Override
    public Usage usage() {
        return context.usage();
    }

    @Override
    public void record(Usage usage, Cost cost) {
        context.record(usage, cost);
    }

    @Override
    public Duration elapsed() {
        return since(startNanos);
    }

    /** The time since a {@link System#nanoTime()} reading. */
    static Duration since(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    /** Gives an event to a listener; one that throws is logged and the event dropped for it. */
    static void emitQuietly(AgentListener listener, String agent, AgentEvent event) {
        try {
            listener.onEvent(event);
        } catch (RuntimeException e) {
            LOG.warn("an event listener of agent '{}' threw on {}; the event is dropped", agent,
                    event.getClass().getSimpleName(), e);
        }
    }

    CancellationException cancelled() {
        return new CancellationException("agent '" + agent.name() + "' was cancelled");
    }
}
