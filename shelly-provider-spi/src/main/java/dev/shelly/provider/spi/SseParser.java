package dev.shelly.provider.spi;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads the lines of a {@code text/event-stream} into events, as the HTML standard describes:
 * {@code event:} and {@code data:} fields, comment lines starting with a colon, a blank line
 * ending each event. Other fields ({@code id}, {@code retry}) are ignored.
 *
 * <p>It works on the bytes as they arrived (UTF-8), so an event costs no string until someone
 * asks for one: {@link #line} reports that an event is complete, and its name, data bytes and
 * length stay readable until the next line is fed. One parser serves one stream.
 */
final class SseParser {
    private static final byte[] EVENT = {'e', 'v', 'e', 'n', 't'};
    private static final byte[] DATA = {'d', 'a', 't', 'a'};

    private byte[] data = new byte[512];
    private int length;
    private boolean hasData;
    private String event;
    /** The name of the event before, kept with its bytes, since a stream repeats a few names. */
    private byte[] lastNameBytes = new byte[0];
    private String lastName;
    /** The complete event's name, once {@link #line} or {@link #finish} has returned true. */
    private String completeName;

    /**
     * Feeds one line (without its line ending).
     *
     * @param line the buffer holding the line, from index 0
     * @param lineLength the line's length in bytes
     * @return true when the line completes an event
     */
    boolean line(byte[] line, int lineLength) {
        release();
        if (lineLength == 0) {
            return dispatch();
        }
        if (line[0] == ':') {
            return false;
        }
        int colon = indexOf(line, lineLength, (byte) ':');
        int fieldEnd = colon < 0 ? lineLength : colon;
        int start = lineLength;
        if (colon >= 0) {
            start = colon + 1;
            if (start < lineLength && line[start] == ' ') {
                start++;
            }
        }
        if (is(line, fieldEnd, EVENT)) {
            event = name(line, start, lineLength);
        } else if (is(line, fieldEnd, DATA)) {
            int add = lineLength - start + (hasData ? 1 : 0);
            if (length + add > data.length) {
                data = Arrays.copyOf(data, Math.max(data.length * 2, length + add));
            }
            if (hasData) {
                data[length++] = '\n';
            }
            System.arraycopy(line, start, data, length, lineLength - start);
            length += lineLength - start;
            hasData = true;
        }
        return false;
    }

    /**
     * At the end of the stream: whether the server left a last event without a blank line after it.
     *
     * @return true when there is such an event to read
     */
    boolean finish() {
        release();
        return dispatch();
    }

    /** The complete event's name; {@code message} when the server named none. */
    String name() {
        return completeName;
    }

    /** The buffer holding the complete event's data lines, joined with {@code \n}, from index 0. */
    byte[] data() {
        return data;
    }

    /** The length of the complete event's data in bytes. */
    int length() {
        return length;
    }

    /** The complete event as a value, its data decoded. */
    SseEvent toEvent() {
        return new SseEvent(completeName, new String(data, 0, length, StandardCharsets.UTF_8));
    }

    /** Forgets the event handed on before, if any: its data goes with the next line. */
    private void release() {
        if (completeName != null) {
            completeName = null;
            length = 0;
        }
    }

    private boolean dispatch() {
        boolean complete = hasData;
        if (complete) {
            completeName = event == null || event.isEmpty() ? "message" : event;
        }
        event = null;
        hasData = false;
        return complete;
    }

    /** The event's name, the same string as the event before when the bytes are the same. */
    private String name(byte[] line, int from, int to) {
        if (Arrays.equals(line, from, to, lastNameBytes, 0, lastNameBytes.length)) {
            return lastName;
        }
        lastNameBytes = Arrays.copyOfRange(line, from, to);
        lastName = new String(lastNameBytes, StandardCharsets.UTF_8);
        return lastName;
    }

    private static boolean is(byte[] line, int fieldEnd, byte[] field) {
        return Arrays.equals(line, 0, fieldEnd, field, 0, field.length);
    }

    private static int indexOf(byte[] line, int lineLength, byte b) {
        for (int i = 0; i < lineLength; i++) {
            if (line[i] == b) {
                return i;
            }
        }
        return -1;
    }
}
