package dev.shelly.modeladapter;

/**
 * Receives the pieces of a reply while a completer streams it.
 *
 * <p>Deltas arrive on the thread that called {@link Completer#complete(ModelRequest,
 * StreamListener)}, in the order the provider sent them. A listener should
 * return quickly; an exception it throws aborts the completion.
 */
@FunctionalInterface
public interface StreamListener {

    /** A listener that ignores every delta. */
    StreamListener NONE = delta -> {};

    /**
     * Called for each delta.
     *
     * @param delta the next piece of the reply
     */
    void onDelta(Delta delta);
}
