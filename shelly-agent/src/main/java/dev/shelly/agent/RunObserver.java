package dev.shelly.agent;

import dev.shelly.agent.RunInterceptor.ModelCall;
import dev.shelly.agent.RunInterceptor.ToolInvocation;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTarget;

/**
 * Watches the work of runs from the inside, on the thread that does it: each agent run, each
 * workflow (team, hand-off group), each model call and each tool call, from its start to its end
 * whether it succeeds or fails, and each piece of work a run hands to another thread. Tracing and
 * metrics are built on it ({@code shelly-otel}); so can anything that keeps per-thread state
 * around the work, such as a logging MDC.
 *
 * <p>Where the links of a {@link RunInterceptor} chain decide about calls and may change them,
 * an observer only watches, and sees what the other links do not: a call that failed, the
 * thread a tool really runs on, the whole of a run, and the hand-off of work to the virtual
 * threads of a tool turn, {@code delegate}, a team step or an agent's
 * {@linkplain Agent.Builder#timeout time limit}.
 *
 * <p>Observers are added to a run's context ({@link RunContext.Builder#observers}) and reach
 * everything below it (those that are not {@linkplain #active() active} are left out): delegated children, team members, agents used as tools. The contract:
 * <ul>
 *   <li>Each {@code ...Started} method is called on the thread that does the work, right before
 *       it, and the {@link Observation} it returns is ended exactly once, on that same thread,
 *       right after it. Observations on one thread are strictly nested (the last started is the
 *       first ended), so an observer may make something current for the thread between the two
 *       (a span, MDC entries) and restore it when the observation ends.
 *   <li>Several observers start in the order they were added and end in reverse order.
 *   <li>{@link #propagate} is called on a thread that hands work to another, once per piece of
 *       work, before the other thread starts; what it returns runs on that thread.
 *   <li>An observer must not block or throw: an exception it throws is logged at WARN and
 *       ignored, so watching never changes what a run does.
 * </ul>
 * A model call's observation covers the completer's call only (the request as the links
 * rewrote it, the response before the links see it); a tool call's covers the tool running (a
 * call a link denied or paused, or a tool the request did not offer, never runs and is not
 * observed).
 *
 * <p>A convenience on the run's interception chain: a context's observers are one
 * {@link RunInterceptor} link, the innermost, so that they record what reaches the model and the
 * tool; {@link #workflowStarted} and {@link #propagate} are called by the workflows and the
 * fan-outs themselves.
 */
public interface RunObserver {

    /**
     * Whether this observer watches anything at all. One that would do nothing, such as
     * telemetry on a no-op OpenTelemetry, answers false: a run context built with it leaves it
     * out ({@link RunContext#observers()}), so that it costs the runs nothing.
     *
     * @return true by default
     */
    default boolean active() {
        return true;
    }

    /**
     * An agent's run starts, on its thread, once it has entered its context (so the run id, the
     * agent, the parent run and the session are known).
     *
     * @param run the run as the chain's links see it: its agent (name, description and
     *     {@linkplain Agent#completer() completer}) and its context; an observer reads it and
     *     never proceeds with it
     * @return what to do when the run ends, with its final message or its failure
     */
    default Observation<Message> runStarted(RunInterceptor.RunChain run) {
        return Observation.none();
    }

    /**
     * A workflow (a {@link dev.shelly.agent.workflow.Team} or a
     * {@link dev.shelly.agent.workflow.Handoff}) starts its run, on the caller's thread. Its
     * members' runs happen inside it.
     *
     * @param workflow the team or hand-off group
     * @param context the caller's scope the members run in
     * @return what to do when the workflow ends, with its last reply or its failure
     */
    default Observation<Message> workflowStarted(Runner workflow, RunContext context) {
        return Observation.none();
    }

    /**
     * A model call is about to be sent, on the run's thread.
     *
     * @param call the call, with the request as the links rewrote it
     * @param target what the agent's completer calls ({@link dev.shelly.modeladapter.Completer#target()})
     * @return what to do when the call returns, with the response or the failure
     */
    default Observation<ModelResponse> modelCallStarted(ModelCall call, ModelTarget target) {
        return Observation.none();
    }

    /**
     * A tool call is about to run, on the thread that runs it.
     *
     * @param call the call, with the arguments as the links rewrote them
     * @return what to do when the tool returns, with its result (an error result when the tool
     *     failed) or the exception that ended it (a cancellation)
     */
    default Observation<ToolResult> toolCallStarted(ToolInvocation call) {
        return Observation.none();
    }

    /**
     * Carries what this observer keeps on the current thread over to work about to run on
     * another thread, as an executor decorator does: called on the handing thread, and the
     * returned task is what the other thread runs.
     *
     * @param task the work
     * @return the work to run instead; {@code task} by default
     */
    default Runnable propagate(Runnable task) {
        return task;
    }

    /**
     * The end of one observed piece of work.
     *
     * @param <R> what the work returns
     */
    @FunctionalInterface
    interface Observation<R> {

        /**
         * The work ended; called once, on the thread that started the observation.
         *
         * @param result what it returned, or null when it failed
         * @param failure what it threw, or null when it returned
         */
        void end(R result, Throwable failure);

        /**
         * An observation that does nothing.
         *
         * @param <R> what the work returns
         * @return the observation
         */
        static <R> Observation<R> none() {
            // One call site, no captures: the same instance every time, which lets a run skip it.
            return (result, failure) -> { };
        }
    }
}
