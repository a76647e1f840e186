package dev.shelly.provider.spi;

import java.io.EOFException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import okio.Buffer;

/**
 * Reads the lines of a {@code text/event-stream} into events, as the HTML standard describes:
 * {@code event:} and {@code data:} fields, comment lines starting with a colon, a blank line
 * ending each event. Other fields ({@code id}, {@code retry}) are ignored.
 *
 * <p>It works on the bytes as they arrived (UTF-8), so an event costs no string until someone
 * asks for one: {@link #line} (or {@link #dataLine}) reports that an event is complete, and its
 * name and data bytes stay readable until the next line is fed. One parser serves one stream.
 */
final class SseParser {
    private static final byte[] EVENT = {'e', 'v', 'e', 'n', 't'};
    private static final byte[] DATA = {'d', 'a', 't', 'a'};

    private byte[] data = new byte[0]; // grown to the longest data seen
    private int length;
    /** The complete event's data when it lies in the reader's buffer: array, offset and length. */
    private byte[] borrowed;
    private int borrowedOffset;
    private int borrowedLength;
    private boolean hasData;
    private String event;
    /** The name of the event before, kept with its bytes, since a stream repeats a few names. */
    private byte[] lastNameBytes = new byte[0];
    private String lastName;
    /** The complete event's name, once {@link #line} or {@link #finish} has returned true. */
    private String completeName;

    /**
     * Feeds one line (without its line ending) and consumes it.
     *
     * @param buffer the buffer the line opens
     * @param lineLength the line's length in bytes
     * @return true when the line completes an event
     * @throws EOFException when the buffer holds less than the line
     */
    boolean line(Buffer buffer, int lineLength) throws EOFException {
        release();
        if (lineLength == 0) {
            return dispatch();
        }
        if (buffer.getByte(0) == ':') {
            buffer.skip(lineLength);
            return false;
        }
        int fieldEnd = 0;
        while (fieldEnd < lineLength && buffer.getByte(fieldEnd) != ':') {
            fieldEnd++;
        }
        int start = lineLength;
        if (fieldEnd < lineLength) {
            start = fieldEnd + 1;
            if (start < lineLength && buffer.getByte(start) == ' ') {
                start++;
            }
        }
        if (is(buffer, fieldEnd, EVENT)) {
            buffer.skip(start);
            event = name(buffer, lineLength - start);
        } else if (is(buffer, fieldEnd, DATA)) {
            buffer.skip(start);
            int add = lineLength - start + (hasData ? 1 : 0);
            if (length + add > data.length) {
                data = Arrays.copyOf(data, Math.max(data.length * 2, length + add));
            }
            if (hasData) {
                data[length++] = '\n';
            }
            int end = length + lineLength - start;
            while (length < end) {
                length += buffer.read(data, length, end - length);
            }
            hasData = true;
        } else {
            buffer.skip(lineLength);
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

    /**
     * Completes an event made of one data line whose value lies, in one piece, in the reader's
     * buffer, without copying it: the same event as feeding the line and then a blank line.
     *
     * @param array the array holding the value
     * @param offset where the value starts in it
     * @param valueLength the value's length in bytes
     * @return true (the event is complete)
     */
    boolean dataLine(byte[] array, int offset, int valueLength) {
        release();
        borrowed = array;
        borrowedOffset = offset;
        borrowedLength = valueLength;
        completeName = event == null || event.isEmpty() ? "message" : event;
        event = null;
        hasData = false;
        return true;
    }

    /** Whether an event has data lines so far (a data line now would not be its only one). */
    boolean hasData() {
        return hasData;
    }

    /** The array holding the complete event's data lines, joined with {@code \n}. */
    byte[] data() {
        return borrowed != null ? borrowed : data;
    }

    /** Where the complete event's data starts in {@link #data()}. */
    int offset() {
        return borrowed != null ? borrowedOffset : 0;
    }

    /** The length of the complete event's data in bytes. */
    int length() {
        return borrowed != null ? borrowedLength : length;
    }

    /** The complete event as a value, its data decoded. */
    SseEvent toEvent() {
        return new SseEvent(completeName, new String(data(), offset(), length(), StandardCharsets.UTF_8));
    }

    /** Forgets the event handed on before, if any: its data goes with the next line. */
    private void release() {
        if (completeName != null) {
            completeName = null;
            length = 0;
            borrowed = null;
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

    /** Reads the event's name: the same string as the event before when the bytes are the same. */
    private String name(Buffer buffer, int nameLength) throws EOFException {
        boolean same = nameLength == lastNameBytes.length;
        for (int i = 0; same && i < nameLength; i++) {
            same = buffer.getByte(i) == lastNameBytes[i];
        }
        if (same) {
            buffer.skip(nameLength);
            return lastName;
        }
        lastNameBytes = buffer.readByteArray(nameLength);
        lastName = new String(lastNameBytes, StandardCharsets.UTF_8);
        return lastName;
    }

    private static boolean is(Buffer buffer, int fieldEnd, byte[] field) {
        if (fieldEnd != field.length) {
            return false;
        }
        for (int i = 0; i < fieldEnd; i++) {
            if (buffer.getByte(i) != field[i]) {
                return false;
            }
        }
        return true;
    }
}
