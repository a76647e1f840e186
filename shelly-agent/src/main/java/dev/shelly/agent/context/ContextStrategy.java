package dev.shelly.agent.context;

import dev.shelly.tools.ToolBox;
import java.util.Optional;

/**
 * One step of context management, run on the model's view before every model call of an agent
 * with a {@link ContextPolicy}. The policy runs its strategies in the order given; each sees the
 * view as the ones before it left it.
 *
 * <p>A strategy changes only the {@link ContextView}: the messages the model sees and the tools
 * it is offered. What it adds for good (a summary, a note the model reads) goes through the view
 * into the chat, so the session's transcript records it. Strategies are immutable and may be
 * shared between agents; what one must remember during a run it keeps in
 * {@link ContextView#state}.
 */
public interface ContextStrategy {

    /**
     * The strategy's name, as in events and in the engine's config ({@code compaction},
     * {@code trim_tool_results}, ...).
     *
     * @return the name
     */
    String name();

    /**
     * Shapes the view before a model call.
     *
     * @param view the model's view of this call
     */
    void apply(ContextView view);

    /**
     * Tools the strategy offers the model, such as {@code recall} for offloaded results.
     *
     * @return the toolbox, or empty when the strategy offers none
     */
    default Optional<ToolBox> tools() {
        return Optional.empty();
    }

    /**
     * Whether the strategy may replace messages of the view ({@link ContextView#replace}). During
     * a run, each call's view extends the previous call's as its strategies left it; that holds
     * only while no strategy that runs before the one that replaced messages may replace one too
     * (it would then read the other's rewrite instead of the chat's message). A strategy that
     * never replaces a message (one that compacts, adds notes, checks budgets or scopes the
     * tools) says so here, and the views stay extendable.
     *
     * @return false when the strategy never calls {@link ContextView#replace}; true unless
     *     overridden
     */
    default boolean replacesMessages() {
        return true;
    }
}
