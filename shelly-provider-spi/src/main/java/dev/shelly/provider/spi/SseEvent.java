package dev.shelly.provider.spi;

/**
 * One server-sent event.
 *
 * @param event the event's name; {@code message} when the server named none
 * @param data the event's data lines joined with {@code \n}
 */
public record SseEvent(String event, String data) {
    /** Validates both fields. */
    public SseEvent {
        if (event == null || data == null) {
            throw new IllegalArgumentException("SseEvent event and data must not be null");
        }
    }
}
