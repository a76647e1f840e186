package dev.shelly.provider.spi;

/**
 * Reads the lines of a {@code text/event-stream} into events, as the HTML standard describes:
 * {@code event:} and {@code data:} fields, comment lines starting with a colon, a blank line
 * ending each event. Other fields ({@code id}, {@code retry}) are ignored.
 */
final class SseParser {
    private String event;
    private final StringBuilder data = new StringBuilder();
    private boolean hasData;

    /** Feeds one line (without its line ending); returns the event it completes, or null. */
    SseEvent line(String line) {
        if (line.isEmpty()) {
            return dispatch();
        }
        if (line.charAt(0) == ':') {
            return null;
        }
        int colon = line.indexOf(':');
        String field = colon < 0 ? line : line.substring(0, colon);
        String value = "";
        if (colon >= 0) {
            int start = colon + 1;
            if (start < line.length() && line.charAt(start) == ' ') {
                start++;
            }
            value = line.substring(start);
        }
        switch (field) {
            case "event" -> event = value;
            case "data" -> {
                if (hasData) {
                    data.append('\n');
                }
                data.append(value);
                hasData = true;
            }
            default -> { }
        }
        return null;
    }

    /** At the end of the stream: the last event if the server did not end it with a blank line. */
    SseEvent finish() {
        return dispatch();
    }

    private SseEvent dispatch() {
        SseEvent result = null;
        if (hasData) {
            result = new SseEvent(event == null || event.isEmpty() ? "message" : event, data.toString());
        }
        event = null;
        data.setLength(0);
        hasData = false;
        return result;
    }
}
