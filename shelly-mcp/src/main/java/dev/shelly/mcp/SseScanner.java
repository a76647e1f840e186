package dev.shelly.mcp;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads an MCP event stream as it arrives and hands on only whole events (up to the blank line
 * that ends each), remembering what resuming it needs: the last event id, the {@code retry}
 * interval, and whether a JSON-RPC response has come. Bytes of an event cut off by the end of a
 * connection are never handed on, so a resumed stream continues at an event boundary.
 */
final class SseScanner {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private final StringBuilder data = new StringBuilder();
    private boolean afterCr;
    private boolean eventHasFields;
    private String eventId;
    private String lastId;
    private long retryMillis = -1;
    private boolean answered;
    private int events;

    /**
     * Takes the next bytes of the stream.
     *
     * @param buffers the bytes, as the HTTP client delivers them
     * @return the bytes of the events these completed, empty when none
     */
    byte[] feed(List<ByteBuffer> buffers) {
        ByteArrayOutputStream complete = new ByteArrayOutputStream();
        for (ByteBuffer buffer : buffers) {
            ByteBuffer b = buffer.duplicate();
            while (b.hasRemaining()) {
                byte c = b.get();
                pending.write(c);
                if (c == '\n' && afterCr) {
                    afterCr = false;   // the LF of a CRLF: the line ended at the CR
                    continue;
                }
                afterCr = c == '\r';
                if (c == '\n' || c == '\r') {
                    if (endLine()) {
                        complete.writeBytes(pending.toByteArray());
                        pending.reset();
                    }
                } else {
                    line.write(c);
                }
            }
        }
        return complete.toByteArray();
    }

    /**
     * A new connection continues the stream: the event the last one cut off is dropped, what was
     * learned from whole events (last id, retry interval, response) is kept.
     */
    void reconnected() {
        pending.reset();
        line.reset();
        data.setLength(0);
        afterCr = false;
        eventHasFields = false;
        eventId = null;
    }

    /** A line ended; true when it was the blank line that ends an event. */
    private boolean endLine() {
        String text = line.toString(StandardCharsets.UTF_8);
        line.reset();
        if (!text.isEmpty()) {
            field(text);
            return false;
        }
        if (eventHasFields) {
            dispatch();
        }
        return true;
    }

    private void field(String text) {
        if (text.startsWith(":")) {
            return;
        }
        eventHasFields = true;
        int colon = text.indexOf(':');
        String name = colon < 0 ? text : text.substring(0, colon);
        String value = colon < 0 ? "" : text.substring(colon + 1);
        if (value.startsWith(" ")) {
            value = value.substring(1);
        }
        switch (name) {
            case "id" -> eventId = value;
            case "data" -> data.append(data.isEmpty() ? "" : "\n").append(value);
            case "retry" -> {
                if (!value.isEmpty() && value.chars().allMatch(Character::isDigit) && value.length() < 10) {
                    retryMillis = Long.parseLong(value);
                }
            }
            default -> { }
        }
    }

    private void dispatch() {
        events++;
        if (eventId != null) {
            lastId = eventId;
        }
        String payload = data.toString().strip();
        if (!payload.isEmpty() && isResponse(payload)) {
            answered = true;
        }
        data.setLength(0);
        eventId = null;
        eventHasFields = false;
    }

    /** Whether the data is a JSON-RPC response (or a batch holding one): an id with a result or an error. */
    private static boolean isResponse(String payload) {
        try {
            JsonNode node = JSON.readTree(payload);
            if (node.isArray()) {
                for (JsonNode item : node) {
                    if (item.has("id") && (item.has("result") || item.has("error"))) {
                        return true;
                    }
                }
                return false;
            }
            return node.has("id") && (node.has("result") || node.has("error"));
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** The id of the last whole event that had one, or null. */
    String lastId() {
        return lastId;
    }

    /** The {@code retry} interval the server last gave, or -1. */
    long retryMillis() {
        return retryMillis;
    }

    /** Whether a JSON-RPC response has come. */
    boolean answered() {
        return answered;
    }

    /** How many whole events have come. */
    int events() {
        return events;
    }
}
