package dev.shelly.provider.spi;

import dev.shelly.modeladapter.ModelException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Function;
import okhttp3.Call;
import okhttp3.MediaType;
import okhttp3.Response;
import okio.BufferedSource;

/**
 * Does the call of one stream request and hands the events of its answer on, in order, to
 * {@link Events}; {@link #read} then returns what ends them: {@link #END_EVENT} after the last
 * one, {@link #END_OF_STREAM} when the body ends first, a {@link WholeBody} when the server
 * answered with one JSON document, or the failure to throw.
 *
 * <p>The body is read as bytes, line by line, into buffers kept for the whole stream: an event
 * costs nothing until its handler asks for strings.
 */
final class EventStreamReader {
    /** The event the stream's decoder called the last one has been handed on. */
    static final Object END_EVENT = new Object();
    /** The body ended before an event the decoder called the last one. */
    static final Object END_OF_STREAM = new Object();

    /** A streaming request answered with one JSON document. */
    record WholeBody(byte[] bytes) {}

    /** Where the events go. */
    @FunctionalInterface
    interface Events {
        /**
         * Handles one event.
         *
         * @param parser holds the event: its name, and its data until the next line is fed
         * @return true when it was the last event
         */
        boolean handle(SseParser parser);
    }

    private final Call call;
    private final Events events;
    private final Function<ErrorResponse, ModelException> errors;
    private final HttpFailures failures;
    private byte[] line = new byte[512];

    EventStreamReader(Call call, Events events, Function<ErrorResponse, ModelException> errors, HttpFailures failures) {
        this.call = call;
        this.events = events;
        this.errors = errors;
        this.failures = failures;
    }

    /**
     * Does the call and hands its events on.
     *
     * @return what ends them: an end marker, a whole body, or the failure to throw (an exception
     *     the handler throws included)
     */
    Object read() {
        int answered = 0; // the status, once a successful answer is being read
        try (Response response = call.execute()) {
            if (!response.isSuccessful()) {
                return failures.failure(response, errors);
            }
            answered = response.code();
            BufferedSource source = response.body().source();
            MediaType type = response.body().contentType();
            if (isWholeDocument(type, source)) {
                return new WholeBody(source.readByteArray());
            }
            if (!isEventStream(type) && isHtml(type, source)) {
                return failures.notAReply("an HTML page", source);
            }
            return events(source);
        } catch (IOException e) {
            return answered > 0 && !(e instanceof InterruptedIOException) ? failures.streamCut(answered, e)
                    : failures.ioFailure(e);
        } catch (RuntimeException | Error e) {
            return e;
        }
    }

    /** Hands on the body's events; returns what ends them: an end marker, or the failure of a body that is no stream. */
    private Object events(BufferedSource source) throws IOException {
        SseParser parser = new SseParser();
        StringBuilder head = null; // the first lines, while none of them is an event field
        boolean anyEvent = false;
        int length;
        while ((length = readLine(source)) >= 0) {
            if (!anyEvent && (head != null || !isSseLine(line, length))) {
                if (head == null) {
                    head = new StringBuilder();
                }
                if (head.length() < HttpFailures.MAX_EXCERPT) {
                    String text = new String(line, 0, length, StandardCharsets.UTF_8);
                    head.append(text, 0, Math.min(text.length(), HttpFailures.MAX_EXCERPT)).append('\n');
                }
            }
            if (parser.line(line, length)) {
                anyEvent = true;
                if (events.handle(parser)) {
                    return END_EVENT;
                }
            }
        }
        if (parser.finish()) {
            anyEvent = true;
            if (events.handle(parser)) {
                return END_EVENT;
            }
        }
        if (!anyEvent && head != null) {
            return failures.invalidResponse("the reply to a stream request is not an event stream: "
                    + ErrorResponse.excerpt(head.toString(), HttpFailures.MAX_EXCERPT));
        }
        return END_OF_STREAM;
    }

    /**
     * Reads the next line into {@link #line}, as okio's {@code readUtf8Line} splits lines: up to
     * a {@code \n} or a {@code \r\n}, or the rest of the body at its end.
     *
     * @return the line's length in bytes, or -1 at the end of the body
     */
    private int readLine(BufferedSource source) throws IOException {
        long newline = source.indexOf((byte) '\n');
        long size;
        if (newline >= 0) {
            size = newline > 0 && source.getBuffer().getByte(newline - 1) == '\r' ? newline - 1 : newline;
        } else {
            size = source.getBuffer().size();
            if (size == 0) {
                return -1;
            }
        }
        if (size > Integer.MAX_VALUE - 8) {
            throw new IOException("a line of the event stream is too long: " + size + " bytes");
        }
        int n = (int) size;
        if (n > line.length) {
            line = Arrays.copyOf(line, Math.max(n, line.length * 2));
        }
        int read = 0;
        while (read < n) {
            read += source.read(line, read, n - read);
        }
        if (newline >= 0) {
            source.skip(newline - size + 1); // the line ending
        }
        return n;
    }

    /**
     * Whether a successful answer to a stream request is one JSON document rather than events:
     * declared as JSON, or undeclared and opening with an object. A declared event stream is
     * always read as events.
     */
    private static boolean isWholeDocument(MediaType type, BufferedSource source) throws IOException {
        if (type != null) {
            if (isEventStream(type)) {
                return false;
            }
            if (type.subtype().equalsIgnoreCase("json") || type.subtype().toLowerCase(Locale.ROOT).endsWith("+json")) {
                return true;
            }
        }
        return firstByte(source) == '{';
    }

    private static boolean isEventStream(MediaType type) {
        return type != null && type.type().equalsIgnoreCase("text") && type.subtype().equalsIgnoreCase("event-stream");
    }

    /**
     * Whether a line can belong to an event stream: blank, a comment, or a field an event is
     * made of. Anything else before the first event means the body is not an event stream.
     */
    private static boolean isSseLine(byte[] bytes, int length) {
        boolean blank = true;
        for (int i = 0; i < length; i++) {
            if (bytes[i] < 0) { // not ASCII: as a string, where white space beyond ASCII counts as blank
                return isSseLine(new String(bytes, 0, length, StandardCharsets.UTF_8));
            }
            blank &= Character.isWhitespace(bytes[i]);
        }
        if (blank || bytes[0] == ':') {
            return true;
        }
        int fieldEnd = 0;
        while (fieldEnd < length && bytes[fieldEnd] != ':') {
            fieldEnd++;
        }
        for (byte[] field : FIELDS) {
            if (Arrays.equals(bytes, 0, fieldEnd, field, 0, field.length)) {
                return true;
            }
        }
        return false;
    }

    private static final byte[][] FIELDS = {"data".getBytes(StandardCharsets.US_ASCII),
        "event".getBytes(StandardCharsets.US_ASCII), "id".getBytes(StandardCharsets.US_ASCII),
        "retry".getBytes(StandardCharsets.US_ASCII)};

    private static boolean isSseLine(String line) {
        if (line.isBlank() || line.startsWith(":")) {
            return true;
        }
        int colon = line.indexOf(':');
        String field = colon < 0 ? line : line.substring(0, colon);
        return field.equals("data") || field.equals("event") || field.equals("id") || field.equals("retry");
    }

    /** Whether a successful body is a web page (a proxy's error or login page), not a reply. */
    private static boolean isHtml(MediaType type, BufferedSource source) throws IOException {
        if (type != null && type.subtype().equalsIgnoreCase("html")) {
            return true;
        }
        return firstByte(source) == '<';
    }

    /** The first byte that is not white space, without consuming it; -1 for an empty body. */
    private static int firstByte(BufferedSource source) throws IOException {
        BufferedSource peek = source.peek();
        while (peek.request(1)) {
            byte b = peek.readByte();
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return b;
            }
        }
        return -1;
    }
}
