package dev.shelly.modeladapter;

/**
 * Whether and which tools the model must call on one request. Providers map it to their own
 * field; a request that sets none leaves the provider's default (the model decides).
 */
public sealed interface ToolChoice {

    /** The model decides whether to call tools. */
    ToolChoice AUTO = new Auto();
    /** The model must not call tools, although they are offered. */
    ToolChoice NONE = new None();
    /** The model must call at least one of the offered tools. */
    ToolChoice REQUIRED = new Required();

    /**
     * The model must call this tool.
     *
     * @param name the tool's name; the request must offer it
     * @return the choice
     */
    static ToolChoice named(String name) {
        return new Named(name);
    }

    /** The model decides whether to call tools. */
    record Auto() implements ToolChoice {}

    /** The model must not call tools. */
    record None() implements ToolChoice {}

    /** The model must call at least one tool. */
    record Required() implements ToolChoice {}

    /**
     * The model must call one named tool.
     *
     * @param name the tool's name
     */
    record Named(String name) implements ToolChoice {
        /** Validates the name. */
        public Named {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("ToolChoice.named name must not be null or blank");
            }
        }
    }
}
