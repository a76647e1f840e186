package dev.shelly.provider.spi;

import dev.shelly.modeladapter.ModelException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Locale;
import java.util.function.Function;
import okhttp3.Call;
import okhttp3.MediaType;
import okhttp3.Response;
import okio.Buffer;
import okio.BufferedSource;
import okio.ByteString;

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
            MediaType type = contentType(response);
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
        Buffer buffer = source.getBuffer();
        Buffer.UnsafeCursor cursor = new Buffer.UnsafeCursor();
        StringBuilder head = null; // the first lines, while none of them is an event field
        boolean anyEvent = false;
        long newline;
        while ((newline = nextLine(source)) >= 0 || buffer.size() > 0) {
            // A line ends at \n or \r\n, or with the body, as okio's readUtf8Line splits lines.
            long size = newline < 0 ? buffer.size() : newline > 0 && buffer.getByte(newline - 1) == '\r' ? newline - 1 : newline;
            if (size > Integer.MAX_VALUE - 8) {
                throw new IOException("a line of the event stream is too long: " + size + " bytes");
            }
            int length = (int) size;
            if (!anyEvent && (head != null || !isSseLine(buffer, length))) {
                if (head == null) {
                    head = new StringBuilder();
                }
                if (head.length() < HttpFailures.MAX_EXCERPT) {
                    Buffer copy = new Buffer();
                    buffer.copyTo(copy, 0, length);
                    String text = copy.readUtf8();
                    head.append(text, 0, Math.min(text.length(), HttpFailures.MAX_EXCERPT)).append('\n');
                }
            }
            if (head == null && newline >= 0 && !parser.hasData()) {
                // The usual event, one data line and a blank line, already read: handled in place.
                long blankEnd = blankLineEnd(buffer, newline + 1);
                if (blankEnd > 0 && borrow(buffer, cursor, parser, length)) {
                    boolean last = events.handle(parser);
                    buffer.skip(blankEnd);
                    anyEvent = true;
                    if (last) {
                        return END_EVENT;
                    }
                    continue;
                }
            }
            boolean complete = parser.line(buffer, length);
            if (newline >= 0) {
                buffer.skip(newline - size + 1); // the line ending
            }
            if (complete) {
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
     * The end of a blank line starting at {@code from}, when the buffer holds it: after its
     * {@code \n} or {@code \r\n}; else 0.
     */
    private static long blankLineEnd(Buffer buffer, long from) {
        long size = buffer.size();
        if (from < size && buffer.getByte(from) == '\n') {
            return from + 1;
        }
        if (from + 1 < size && buffer.getByte(from) == '\r' && buffer.getByte(from + 1) == '\n') {
            return from + 2;
        }
        return 0;
    }

    /**
     * Completes the event of a {@code data} line at the head of the buffer from the buffer's own
     * array, when the line's value lies in one piece of it.
     *
     * @return whether it did; when not, nothing has changed
     */
    private static boolean borrow(Buffer buffer, Buffer.UnsafeCursor cursor, SseParser parser, int length) {
        if (length < 5 || buffer.getByte(0) != 'd' || buffer.getByte(1) != 'a' || buffer.getByte(2) != 't'
                || buffer.getByte(3) != 'a' || buffer.getByte(4) != ':') {
            return false;
        }
        int start = length > 5 && buffer.getByte(5) == ' ' ? 6 : 5;
        buffer.readUnsafe(cursor);
        try {
            cursor.seek(start);
            if (cursor.data == null || cursor.end - cursor.start < length - start) {
                return length == start && parser.dataLine(EMPTY, 0, 0);
            }
            return parser.dataLine(cursor.data, cursor.start, length - start);
        } finally {
            cursor.close();
        }
    }

    private static final byte[] EMPTY = new byte[0];

    /** Reads until the buffer holds a whole line: the index of its {@code \n}, or -1 when the body ended first. */
    private static long nextLine(BufferedSource source) throws IOException {
        return source.indexOf((byte) '\n');
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

    /**
     * The body's declared type: the usual event stream headers are known without parsing (OkHttp
     * parses a media type with regular expressions), any other as OkHttp parses it, null when
     * there is none or it is malformed.
     */
    private static MediaType contentType(Response response) {
        String header = response.header("Content-Type");
        if (header != null && (header.equalsIgnoreCase("text/event-stream")
                || header.equalsIgnoreCase("text/event-stream; charset=utf-8"))) {
            return EVENT_STREAM;
        }
        return response.body().contentType();
    }

    private static final MediaType EVENT_STREAM = MediaType.get("text/event-stream");

    private static boolean isEventStream(MediaType type) {
        return type != null && type.type().equalsIgnoreCase("text") && type.subtype().equalsIgnoreCase("event-stream");
    }

    /**
     * Whether a line can belong to an event stream: blank, a comment, or a field an event is
     * made of. Anything else before the first event means the body is not an event stream.
     */
    private static boolean isSseLine(Buffer buffer, int length) {
        if (isBlank(buffer, length) || buffer.getByte(0) == ':') {
            return true;
        }
        long fieldEnd = buffer.indexOf((byte) ':', 0, length);
        long fieldLength = fieldEnd < 0 ? length : fieldEnd;
        for (ByteString field : FIELDS) {
            if (fieldLength == field.size() && buffer.rangeEquals(0, field)) {
                return true;
            }
        }
        return false;
    }

    private static final ByteString[] FIELDS = {ByteString.encodeUtf8("data"), ByteString.encodeUtf8("event"),
        ByteString.encodeUtf8("id"), ByteString.encodeUtf8("retry")};

    /** Whether the line is only white space, white space beyond ASCII included. */
    private static boolean isBlank(Buffer buffer, int length) {
        for (int i = 0; i < length; i++) {
            byte b = buffer.getByte(i);
            if (b < 0) { // not ASCII: as a string
                return buffer.snapshot(length).utf8().isBlank();
            }
            if (!Character.isWhitespace(b)) {
                return false;
            }
        }
        return true;
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
