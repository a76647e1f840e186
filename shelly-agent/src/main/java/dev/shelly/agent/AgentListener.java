package dev.shelly.agent;

/**
 * Observes {@link AgentEvent}s.
 *
 * <p>Events arrive on the threads that cause them: the agent's own thread, and the virtual
 * threads of its concurrent tool calls and delegated children, so a listener must be safe for
 * concurrent calls and should return quickly. An exception it throws is logged and ignored: an
 * observer never breaks a run. It is the read-only half of the run's interception chain; a
 * {@link RunInterceptor} that {@linkplain RunInterceptor#observesEvents() observes events} gets
 * the same events.
 */
@FunctionalInterface
public interface AgentListener {

    /** A listener that ignores every event. */
    AgentListener NONE = event -> {};

    /**
     * Called for each event.
     *
     * @param event what happened
     */
    void onEvent(AgentEvent event);

    /**
     * A listener that passes each event to this one, then to another.
     *
     * @param other the second listener
     * @return the combined listener
     */
    default AgentListener andThen(AgentListener other) {
        if (other == null || other == NONE || other == this) {
            return this;
        }
        if (this == NONE) {
            return other;
        }
        AgentListener first = this;
        return event -> {
            first.onEvent(event);
            other.onEvent(event);
        };
    }
}
