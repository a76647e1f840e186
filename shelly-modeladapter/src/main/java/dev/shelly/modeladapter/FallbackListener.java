package dev.shelly.modeladapter;

/**
 * Observes a {@link FallbackCompleter}'s switches: called once per switch, on the thread that
 * called the completer, before the next provider is asked.
 */
@FunctionalInterface
public interface FallbackListener {

    /** A listener that ignores switches. */
    FallbackListener NONE = event -> {};

    /**
     * Called when a request moves to the next provider.
     *
     * @param event the two providers and why
     */
    void onFallback(FallbackEvent event);
}
