package dev.shelly.provider.spi;

import dev.shelly.modeladapter.ModelException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.function.Function;
import java.util.function.Predicate;
import okhttp3.Call;
import okhttp3.MediaType;
import okhttp3.Response;
import okio.BufferedSource;

/**
 * Reads the answer to one stream request on the thread that does the call, and hands what it
 * finds to the calling thread through a queue, in order: each {@link SseEvent}, then
 * {@link #END_EVENT} after the last one, {@link #END_OF_STREAM} when the body ends first, a
 * {@link WholeBody} when the server answered with one JSON document, or the failure to throw.
 */
final class EventStreamReader implements Runnable {
    /** The event the stream's decoder called the last one has been queued. */
    static final Object END_EVENT = new Object();
    /** The body ended before an event the decoder called the last one. */
    static final Object END_OF_STREAM = new Object();

    /** A streaming request answered with one JSON document. */
    record WholeBody(byte[] bytes) {}

    private final Call call;
    private final BlockingQueue<Object> queue;
    private final Function<ErrorResponse, ModelException> errors;
    private final Predicate<SseEvent> isEnd;
    private final HttpFailures failures;

    EventStreamReader(Call call, BlockingQueue<Object> queue, Function<ErrorResponse, ModelException> errors,
            Predicate<SseEvent> isEnd, HttpFailures failures) {
        this.call = call;
        this.queue = queue;
        this.errors = errors;
        this.isEnd = isEnd;
        this.failures = failures;
    }

    @Override
    public void run() {
        int answered = 0; // the status, once a successful answer is being read
        try (Response response = call.execute()) {
            if (!response.isSuccessful()) {
                queue.add(failures.failure(response, errors));
                return;
            }
            answered = response.code();
            BufferedSource source = response.body().source();
            MediaType type = response.body().contentType();
            if (isWholeDocument(type, source)) {
                queue.add(new WholeBody(source.readByteArray()));
                return;
            }
            if (!isEventStream(type) && isHtml(type, source)) {
                queue.add(failures.notAReply("an HTML page", source));
                return;
            }
            queue.add(events(source));
        } catch (IOException e) {
            queue.add(answered > 0 && !(e instanceof InterruptedIOException) ? failures.streamCut(answered, e)
                    : failures.ioFailure(e));
        } catch (RuntimeException | Error e) {
            queue.add(e);
        }
    }

    /** Queues the body's events; returns what ends them: an end marker, or the failure of a body that is no stream. */
    private Object events(BufferedSource source) throws IOException {
        SseParser parser = new SseParser();
        StringBuilder head = null; // the first lines, while none of them is an event field
        boolean anyEvent = false;
        String line;
        while ((line = source.readUtf8Line()) != null) {
            if (!anyEvent && (head != null || !isSseLine(line))) {
                if (head == null) {
                    head = new StringBuilder();
                }
                if (head.length() < HttpFailures.MAX_EXCERPT) {
                    head.append(line, 0, Math.min(line.length(), HttpFailures.MAX_EXCERPT)).append('\n');
                }
            }
            SseEvent event = parser.line(line);
            if (event != null) {
                anyEvent = true;
                queue.add(event);
                if (isEnd.test(event)) {
                    return END_EVENT;
                }
            }
        }
        SseEvent last = parser.finish();
        if (last != null) {
            anyEvent = true;
            queue.add(last);
            if (isEnd.test(last)) {
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
