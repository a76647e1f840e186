package dev.shelly.agent.internal;

import dev.shelly.agent.AgentEvent;
import dev.shelly.chats.Message;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.Usage;
import java.time.Duration;

/**
 * The run a {@link ContextManager} shapes views for, as context management sees it: where its
 * events go, how a summary or note joins its chat, and what it has used so far. A run is one
 * object for its whole length: the manager keeps what its strategies remember for as long as it
 * is given the same run.
 */
public interface ContextRun {

    /**
     * The source of the run's events.
     *
     * @return the source
     */
    AgentEvent.Source source();

    /**
     * Reports an event of the run to its listener; a listener that throws does not stop the run.
     *
     * @param event the event
     */
    void emit(AgentEvent event);

    /**
     * Appends a message to the run's chat and announces it.
     *
     * @param message the message
     * @return its index in the chat
     */
    int append(Message message);

    /**
     * What the run has used so far, its delegated children included.
     *
     * @return the usage
     */
    Usage usage();

    /**
     * Adds one model call's usage and cost to the run, as the summariser's call is.
     *
     * @param usage the usage
     * @param cost its cost
     */
    void record(Usage usage, Cost cost);

    /**
     * How long the run has been going.
     *
     * @return the time since it started
     */
    Duration elapsed();
}
