package dev.shelly.modeladapter;

/**
 * Observes retries: called once before each wait, on the thread that called the completer.
 */
@FunctionalInterface
public interface RetryListener {

    /** A listener that ignores retries. */
    RetryListener NONE = event -> {};

    /**
     * Called when a failed attempt is about to be retried.
     *
     * @param event the failure, the attempt number and the delay
     */
    void onRetry(RetryEvent event);
}
