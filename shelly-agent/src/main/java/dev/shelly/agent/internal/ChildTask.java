package dev.shelly.agent.internal;

import dev.shelly.agent.AgentException;
import dev.shelly.agent.Approvals;
import dev.shelly.agent.RunContext;
import dev.shelly.agent.Runner;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import java.util.List;
import java.util.function.Supplier;

/**
 * One task of a {@code delegate} call, checked, and the work of its child, done on the
 * child's own thread: its path, its input, its run, and whether it was cancelled by itself.
 */
final class ChildTask extends FanOut.Work<ChildTask.Child> implements Supplier<String> {
    private final Orchestration.Delegation call;
    final String agent;
    private final String task;
    /** The call's context as the child's first message, or null; shared by the tasks with one context. */
    private final Message context;
    /** The child, once spawned; read on the same thread. */
    private Runner child;
    /** The child's run context, once entered; read on the same thread. */
    private RunContext entered;
    /** The child's answer when the approvals' desk holds its end, so that it is not run again. */
    private String done;

    /** A task; its index among the call's tasks is its {@link #slot()} in the fan-out that runs them. */
    ChildTask(Orchestration.Delegation call, String agent, String task, Message context) {
        this.call = call;
        this.agent = agent;
        this.task = task;
        this.context = context;
    }

    /**
     * Lets go of what the task held for its child's run once the run ended: the child itself,
     * and this task as the child's path (made now if nobody asked for it).
     */
    private void letGo() {
        child = null;
        if (entered != null) {
            entered.path();
        }
    }

    /** {@return the child's path, made when first needed: most children never need it while they run} */
    @Override
    public String get() {
        return call.path(slot());
    }

    /**
     * The child's run. Its frame is under each of the child's model calls, so what comes
     * before and after the run is called {@linkplain OutOfLine out of line}.
     */
    @Override
    protected Object work() {
        List<Message> input;
        Run run;
        try {
            input = OutOfLine.call(ChildTask::start, this);
            if (input == null) {
                return answered(done); // the desk holds the child's end
            }
            run = call.parent.agent.children().run(child, input, entered);
        } catch (RuntimeException e) {
            return OutOfLine.call(ChildTask::failed, this, e);
        } catch (Error e) {
            OutOfLine.run(ChildTask::letGo, this);
            throw e;
        }
        return OutOfLine.call(ChildTask::ended, this, run);
    }

    /**
     * Spawns the child and enters its context, on the chat the approvals' desk kept for it if
     * it kept one; the child's input, or null when the desk holds the child's end.
     */
    private List<Message> start() {
        Approvals.Frame kept = call.desk == null ? null : call.desk.frame(call.path(slot()));
        if (kept != null && kept.finished() != null) {
            done = kept.finished();
            return null;
        }
        List<Message> chat = kept == null ? List.of() : kept.chat();
        Children children = call.parent.agent.children();
        child = children.spawn(agent, call.parent.context);
        entered = children.enter(child, call.parent.context, this, chat);
        return chat.isEmpty() ? input() : List.of();
    }

    /** The child's result once its run ended. */
    private Child ended(Run run) {
        letGo();
        return child(run.paused() != null ? run.paused() : new Outcome.Answered(run.reply()));
    }

    /** The child's input: the task, after the call's context when it gives one. */
    private List<Message> input() {
        String from = call.from;
        return context == null
                ? List.of(Message.text(from, Role.USER, task))
                : List.of(context, Message.text(from, Role.USER, task));
    }

    /** A child's failure: thrown on, unless the child was cancelled by itself while its parent goes on. */
    private Child failed(RuntimeException e) {
        letGo();
        // A child cancelled by itself ends with a cancellation, or with whatever its
        // interrupted step threw (an HTTP call's failure); either way it was cancelled.
        if (!alone(entered, call.parent)) {
            throw e;
        }
        call.unanswered.incrementAndGet();
        return Child.CANCELLED;
    }

    /** What the child's run ended with, as its result: an answer, or a pause kept for the approvals' desk. */
    private Child child(Outcome outcome) {
        alone(entered, call.parent); // a cancel that came as the child ended must not stop the parent
        if (!(outcome instanceof Outcome.Paused p)) {
            return answered(outcome.reply().text());
        }
        if (call.desk == null) {
            throw new AgentException(agent, p.message(), null);
        }
        call.unanswered.incrementAndGet();
        return new Child(null, p.message(), false, null);
    }

    /**
     * What one child did: answered, waits for a decision (with approvals), saying why, or was
     * cancelled by itself ({@link RunContext#cancel()} of its run) while the parent goes on.
     *
     * @param answer the child's answer when the approvals' desk may keep it (the call has a
     *     desk), else null: the entry holds it
     * @param waiting why the child waits for a decision, or null
     * @param cancelled whether it was cancelled by itself
     * @param entry the answer's entry in the call's results, written on the thread the child ran
     *     on, or null when it did not answer
     */
    record Child(String answer, String waiting, boolean cancelled, String entry) {
        static final Child CANCELLED = new Child(null, null, true, null);
    }

    /** The child answered: its entry in the results written now, its answer kept too for a desk. */
    private Child answered(String answer) {
        String entry = Orchestration.entry(new StringBuilder(32 + agent.length() + answer.length()), agent, "result",
                answer).toString();
        return new Child(call.desk == null ? null : answer, null, false, entry);
    }

    /**
     * Whether a child was cancelled by itself while its parent goes on; if so, the interrupt its
     * cancel left on this thread (the parent's own, for a lone task) is cleared.
     *
     * @param child the child's run context, or null when it was never entered
     */
    private static boolean alone(RunContext child, Run parent) {
        if (child == null || !child.cancelled() || parent.context.cancelled()) {
            return false;
        }
        Thread.interrupted();
        return true;
    }
}
