package dev.shelly.agent.workflow;

import dev.shelly.agent.RunContext;
import dev.shelly.agent.RunObserver;
import dev.shelly.agent.Runner;
import dev.shelly.agent.internal.Observers;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the workflows over a shared chat have in common: a name, the shared chat, one run at a
 * time, and the ways to run. A run appends the user's message, if any, to the shared chat, tells
 * the context's {@link RunObserver}s that the workflow started and how it ended, and takes the
 * workflow's {@linkplain #steps steps}.
 */
abstract sealed class Workflow implements Runner permits Team, Handoff {
    private final String type;
    final String name;
    final Chat shared;
    private final AtomicBoolean running = new AtomicBoolean();

    /**
     * @param type the workflow's type as its arguments are named in errors ({@code Team})
     * @param name the workflow's name
     * @param shared the shared chat
     */
    Workflow(String type, String name, Chat shared) {
        this.type = type;
        this.name = name;
        this.shared = shared;
    }

    /**
     * Runs on the shared chat as it is.
     *
     * @param context the caller's scope; the members run in it
     * @return the message the run ends with: a team's last reply appended in this run, the
     *     answer of the hand-off group's member that ended the run
     * @throws TeamException when a team's member or coordinator fails, or no member replied
     * @throws MaxRoundsException when a team's coordinator reaches its round limit
     * @throws MaxHandoffsException when a hand-off group reaches its transfer limit
     * @throws CancellationException when the calling thread is interrupted
     * @throws IllegalStateException when the workflow is already running
     */
    @Override
    public final Message run(RunContext context) {
        if (context == null) {
            throw new IllegalArgumentException(type + ".run context of '" + name + "' must not be null; use RunContext.root()");
        }
        return execute(List.of(), context);
    }

    /**
     * Appends a user message (sender {@code user}) to the shared chat and runs, in a fresh scope.
     *
     * @param userMessage what the user says
     * @return the message the run ends with, as {@link #run(RunContext)} says
     */
    public final Message run(String userMessage) {
        return run(userMessage, RunContext.root());
    }

    /**
     * Appends a user message (sender {@code user}) to the shared chat and runs inside a caller's
     * scope; the members run in that scope too.
     *
     * @param userMessage what the user says
     * @param context the caller's scope
     * @return the message the run ends with, as {@link #run(RunContext)} says
     */
    public final Message run(String userMessage, RunContext context) {
        if (userMessage == null) {
            throw new IllegalArgumentException(type + ".run userMessage of '" + name + "' must not be null");
        }
        if (context == null) {
            throw new IllegalArgumentException(type + ".run context of '" + name + "' must not be null; use RunContext.root()");
        }
        return execute(List.of(Message.user(userMessage)), context);
    }

    private Message execute(List<Message> input, RunContext context) {
        List<RunObserver> observers = context.observers();
        if (observers.isEmpty()) {
            return guarded(input, context);
        }
        RunObserver.Observation<Message> observed = Observers.start(observers, o -> o.workflowStarted(this, context));
        Message last;
        try {
            last = guarded(input, context);
        } catch (RuntimeException | Error e) {
            observed.end(null, e);
            throw e;
        }
        observed.end(last, null);
        return last;
    }

    private Message guarded(List<Message> input, RunContext context) {
        if (!running.compareAndSet(false, true)) {
            throw new IllegalStateException(alreadyRunning());
        }
        try {
            if (!input.isEmpty()) {
                shared.append(input);
            }
            return steps(context);
        } finally {
            running.set(false);
        }
    }

    /** Whether a run is going on. */
    final boolean running() {
        return running.get();
    }

    /**
     * The run itself, on the shared chat that holds the input: called by one run at a time.
     *
     * @param context the caller's scope
     * @return the message the run ends with
     */
    abstract Message steps(RunContext context);

    /** What a second run that starts while one is going on is told. */
    abstract String alreadyRunning();

    @Override
    public final String name() {
        return name;
    }

    /**
     * The shared chat.
     *
     * @return the chat the workflow's run appends to
     */
    @Override
    public final Chat chat() {
        return shared;
    }
}
