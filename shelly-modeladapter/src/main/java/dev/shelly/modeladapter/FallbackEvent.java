package dev.shelly.modeladapter;

/**
 * A {@link FallbackCompleter} moved a request from one provider to the next.
 *
 * @param from the provider the request left
 * @param to the provider it goes to next
 * @param failure why it left: the provider's failure, or null when {@code from} was skipped
 *     because its circuit is open
 */
public record FallbackEvent(String from, String to, ModelException failure) {

    /** Checks the names. */
    public FallbackEvent {
        if (from == null || to == null) {
            throw new IllegalArgumentException("FallbackEvent.from and .to must not be null");
        }
    }

    /**
     * Why the request moved, as a word for logs and telemetry.
     *
     * @return the failure's kind in lower case ({@code rate_limited}), or {@code circuit_open}
     */
    public String reason() {
        return failure == null ? "circuit_open" : failure.kind().name().toLowerCase(java.util.Locale.ROOT);
    }
}
