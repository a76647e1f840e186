package dev.shelly.agent.internal;

import dev.shelly.agent.RunContext;
import dev.shelly.chats.Message;
import java.util.List;
import java.util.function.Consumer;

/**
 * Internal, not API. How a {@code delegate} call starts the agents it delegates to: the agent's
 * package enters each child's run context and runs the child, so that the loop needs neither the
 * agent nor the registry's factories.
 */
public interface Children {

    /**
     * Spawns a registered agent and runs it one level below the delegating run, at the path of
     * one task of one {@code delegate} call: on the chat a paused child kept, or on a fresh one
     * with the task's input.
     *
     * @param agent the registered agent's name
     * @param parent the delegating run's context
     * @param path the child's path (see {@link RunContext#path()})
     * @param kept the chat a paused child kept, or empty
     * @param input the task's input when nothing was kept
     * @param entered told of the child's run context once it is entered, before the child runs
     * @return how the child's run ended; a pause is a value
     */
    Outcome run(String agent, RunContext parent, String path, List<Message> kept, List<Message> input,
            Consumer<RunContext> entered);
}
