package dev.shelly.agent;

import dev.shelly.agent.internal.ContextRun;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.Usage;
import dev.shelly.tools.ToolContext;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of an agent: the agent's settings, the run's context, its event source, and the state
 * that lives as long as the run. What the tool turn, {@code delegate} and the built-in tools use
 * instead of calling back into the agent.
 */
final class Run implements ContextRun {
    private static final Logger LOG = LoggerFactory.getLogger(Run.class);

    final Agent agent;
    /** The conversation the run works on: its chat and context management's state. */
    final Conversation conversation;
    final RunContext context;
    final AgentEvent.Source source;
    final AgentListener listener;
    final boolean observed;
    private final boolean canDelegate;
    /**
     * The run's interception chain, outermost first: the context's links (the agent's appended
     * when the run entered it), the agent's middleware, the observers, then a structured run's
     * check of its answer. Empty when nothing intercepts, and the loop then calls the model and
     * the tools straight.
     */
    final RunInterceptor[] chain;
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
    /** When the run started, for time budgets. */
    final long startNanos = System.nanoTime();

    Run(Agent agent, Conversation conversation, RunContext context, StructuredOutput<?> out) {
        this.agent = agent;
        this.conversation = conversation;
        this.context = context;
        this.source = new AgentEvent.Source(agent.name(), context.parentAgent().orElse(null), context.depth(),
                context.runId().orElse(null), context.parentRunId().orElse(null), context.sessionId().orElse(null));
        this.listener = context.listener();
        this.observed = listener != AgentListener.NONE;
        Registry registry = context.registry().orElse(null);
        this.chain = chain(context.interceptors(), agent.middleware(), context.observers(),
                out == null ? null : new Links.Structured(this, out));
        this.canDelegate = registry != null && context.depth() < context.delegationLimit()
                && !otherAgents(registry, agent.name()).isEmpty();
    }

    private static RunInterceptor[] chain(List<RunInterceptor> links, List<RunInterceptor> around,
            List<RunObserver> observers, RunInterceptor check) {
        int size = links.size() + around.size() + (observers.isEmpty() ? 0 : 1) + (check == null ? 0 : 1);
        if (size == 0) {
            return NO_LINKS;
        }
        RunInterceptor[] all = new RunInterceptor[size];
        int at = 0;
        for (RunInterceptor i : links) {
            all[at++] = i;
        }
        for (RunInterceptor i : around) {
            all[at++] = i;
        }
        if (!observers.isEmpty()) {
            all[at++] = new Links.Observed(observers);
        }
        if (check != null) {
            all[at] = check;
        }
        return all;
    }

    private static final RunInterceptor[] NO_LINKS = new RunInterceptor[0];

    String name() {
        return agent.name();
    }

    Chat chat() {
        return conversation.chat();
    }

    /** Whether the agent may delegate in this run. */
    boolean canDelegate() {
        return canDelegate;
    }

    Registry registryOrNull() {
        return context.registry().orElse(null);
    }

    /** The registry's agents other than this one, sorted by name. */
    List<Registry.Entry> otherAgents() {
        Registry registry = registryOrNull();
        return registry == null ? List.of() : otherAgents(registry, agent.name());
    }

    static List<Registry.Entry> otherAgents(Registry registry, String self) {
        List<Registry.Entry> all = registry.list();
        List<Registry.Entry> others = new ArrayList<>(all.size());
        for (Registry.Entry e : all) {
            if (!e.name().equals(self)) {
                others.add(e);
            }
        }
        return Collections.unmodifiableList(others);
    }

    /** The run's one tool context, made at its first tool call. Touched by the running thread only. */
    ToolContext toolContext() {
        if (toolContext == null) {
            toolContext = context.toolContext();
        }
        return toolContext;
    }

    /** Appends to the chat and announces it; returns the message's index in the chat. */
    @Override
    public int append(Message message) {
        int size = conversation.chat().append(message);
        if (observed) {
            emit(new AgentEvent.MessageAdded(source, message));
        }
        return size - 1;
    }

    @Override
    public void emit(AgentEvent event) {
        if (!observed) {
            return;
        }
        try {
            listener.onEvent(event);
        } catch (RuntimeException e) {
            LOG.warn("an event listener of agent '{}' threw on {}; the event is dropped", agent.name(),
                    event.getClass().getSimpleName(), e);
        }
    }

    @Override
    public AgentEvent.Source source() {
        return source;
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
    public java.time.Duration elapsed() {
        return since(startNanos);
    }

    /** The time since a {@link System#nanoTime()} reading. */
    static java.time.Duration since(long startNanos) {
        return java.time.Duration.ofNanos(System.nanoTime() - startNanos);
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

    /**
     * The public signal of the run's pause, made once: the observers end the run's observation
     * with it, and the public run methods throw it.
     */
    RunPausedException pauseSignal() {
        if (pauseSignal == null) {
            pauseSignal = paused.signal();
        }
        return pauseSignal;
    }

    CancellationException cancelled() {
        return new CancellationException("agent '" + agent.name() + "' was cancelled");
    }
}
