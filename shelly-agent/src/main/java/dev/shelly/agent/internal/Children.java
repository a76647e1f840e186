package dev.shelly.agent.internal;

import dev.shelly.agent.RunContext;
import dev.shelly.agent.Runner;
import dev.shelly.chats.Message;
import java.util.List;
import java.util.function.Supplier;

/**
 * Internal, not API. How a {@code delegate} call starts the agents it delegates to: the agent's
 * package spawns each child, enters its run context and runs it, so that the loop needs neither
 * the agent nor the registry's factories. Three steps, so that the delegation's task that takes
 * them keeps one frame above the child's run, and running is one thin call down to the agent (a
 * waiting child's frames are kept on the heap).
 */
public interface Children {

    /**
     * Spawns a registered agent: a fresh one from the registry of the delegating run's context.
     *
     * @param agent the registered agent's name
     * @param parent the delegating run's context
     * @return the child, to be entered and run once
     * @throws dev.shelly.agent.AgentException when the agent is not in the registry
     */
    Runner spawn(String agent, RunContext parent);

    /**
     * Enters a child's run context one level below the delegating run, at the path of one task of
     * one {@code delegate} call, and appends the chat a paused child kept.
     *
     * @param child the spawned child
     * @param parent the delegating run's context
     * @param path makes the child's path (see {@link RunContext#path()}) when it is first needed
     * @param kept the chat a paused child kept, or empty
     * @return the child's run context
     */
    RunContext enter(Runner child, RunContext parent, Supplier<String> path, List<Message> kept);

    /**
     * Runs a spawned child on its own conversation, in the context it was entered in.
     *
     * @param child the spawned child
     * @param input the task's input, or empty when the child goes on from a kept chat
     * @param context the child's run context, from {@link #enter}
     * @return the child's run, answered or paused (a pause is a value)
     */
    Run run(Runner child, List<Message> input, RunContext context);
}
