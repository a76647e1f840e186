package dev.shelly.agent.internal;

import dev.shelly.agent.RunContext;
import dev.shelly.chats.Message;
import java.util.List;

/**
 * Internal, not API. How a {@code delegate} call starts the agents it delegates to: the agent's
 * package makes each child's scope and runs the child, so that the loop needs neither the agent
 * nor the registry's factories.
 */
public interface Children {

    /**
     * The scope of the child of one task of one {@code delegate} call: one level deeper than the
     * parent run, naming it, at the path of the call and the task.
     *
     * @param parent the delegating run's context
     * @param callId the {@code delegate} call's id
     * @param task the task's index
     * @return the child's scope
     */
    RunContext scope(RunContext parent, String callId, int task);

    /**
     * Spawns a registered agent and runs it in its scope: on the chat a paused child kept, or on
     * a fresh one with the task's input.
     *
     * @param agent the registered agent's name
     * @param scope the child's scope
     * @param kept the chat a paused child kept, or empty
     * @param input the task's input when nothing was kept
     * @return how the child's run ended; a pause is a value
     */
    Outcome run(String agent, RunContext scope, List<Message> kept, List<Message> input);
}
