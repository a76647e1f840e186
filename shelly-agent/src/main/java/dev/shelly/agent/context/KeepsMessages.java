package dev.shelly.agent.context;

/**
 * A built-in strategy that never replaces a message of the view: it compacts, adds notes, checks
 * budgets or scopes the tools, so the views of a run stay extendable whatever runs before it.
 */
interface KeepsMessages extends ContextStrategy {

    @Override
    default boolean replacesMessages() {
        return false;
    }
}
