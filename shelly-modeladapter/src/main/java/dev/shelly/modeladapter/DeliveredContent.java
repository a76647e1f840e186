package dev.shelly.modeladapter;

/**
 * Watches a stream listener for content: whether any text, thinking or tool-call delta has reached
 * it. A wrapper that tries a request again (a retry, a fallback) may do so only while none has,
 * so that a listener never sees the start of a reply twice. Usage deltas do not count: a provider
 * may report usage before any content (Anthropic's {@code message_start} does). Used by one call
 * on one thread.
 */
final class DeliveredContent {
    private final StreamListener listener;
    private boolean delivered;

    DeliveredContent(StreamListener downstream) {
        if (downstream == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        // Nothing reaches NONE, so nothing is ever delivered and a cut stream may always be tried again.
        this.listener = downstream == StreamListener.NONE ? StreamListener.NONE : delta -> {
            if (!(delta instanceof Delta.UsageDelta)) {
                delivered = true;
            }
            downstream.onDelta(delta);
        };
    }

    /** The listener to hand to the wrapped completer. */
    StreamListener listener() {
        return listener;
    }

    /** Whether any content delta has reached the downstream listener. */
    boolean delivered() {
        return delivered;
    }
}
