package dev.shelly.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import reactor.core.publisher.Mono;

/**
 * The answer to one POSTed request, resumable (SEP-1699): it starts with a priming event (an
 * id, no data, and the {@code retry} interval); every message gets the id
 * {@code <stream>/<n>} and is kept; when the connection closes early (the client's or
 * {@link McpServerCall#closeStream()}), the client reconnects with a GET carrying
 * {@code Last-Event-ID} and gets what it missed, then the rest.
 */
final class ResumableStream implements EventStream, Runnable {
    /** How long a client waits before it reconnects to a closed stream (the SSE {@code retry} field). */
    static final long RETRY_MILLIS = 1000;

    final String id = UUID.randomUUID().toString();
    final String session;
    private final McpJsonMapper json;
    private final List<String> events = new ArrayList<>();
    private final ReentrantLock lock = new ReentrantLock();
    private SseStream connection;
    private long finishedAt;
    private boolean finished;

    ResumableStream(McpJsonMapper json, String session, SseStream connection) {
        this.json = json;
        this.session = session;
        this.connection = connection;
        connection.write("id: " + id + "/0\nretry: " + RETRY_MILLIS + "\ndata: \n\n");
    }

    static String streamOf(String eventId) {
        int slash = eventId.lastIndexOf('/');
        return slash < 0 ? eventId : eventId.substring(0, slash);
    }

    static int indexOf(String eventId) {
        try {
            return Integer.parseInt(eventId.substring(eventId.lastIndexOf('/') + 1));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message, String eventId) {
        return Mono.fromRunnable(() -> {
            String data = encode(message);
            lock.lock();
            try {
                String event = "id: " + id + "/" + (events.size() + 1) + "\nevent: message\ndata: " + data + "\n\n";
                events.add(event);
                if (connection != null && !connection.write(event)) {
                    connection = null;
                }
            } finally {
                lock.unlock();
            }
        });
    }

    /** Continues on a new connection after the event with the given index. */
    void attach(SseStream next, int after) {
        lock.lock();
        try {
            if (connection != null) {
                connection.close();
            }
            for (int i = Math.max(after, 0); i < events.size(); i++) {
                next.write(events.get(i));
            }
            if (finished) {
                next.close();
            } else {
                connection = next;
            }
        } finally {
            lock.unlock();
        }
    }

    /** Closes the current connection; the client reconnects to get the rest. */
    @Override
    public void run() {
        lock.lock();
        try {
            if (connection != null) {
                connection.close();
                connection = null;
            }
        } finally {
            lock.unlock();
        }
    }

    /** The request is answered: no more events; the connection, if any, closes. */
    void finish() {
        lock.lock();
        try {
            finished = true;
            finishedAt = System.nanoTime();
            run();
        } finally {
            lock.unlock();
        }
    }

    boolean finishedBefore(long nanos) {
        lock.lock();
        try {
            return finished && finishedAt - nanos < 0;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.empty();
    }

    @Override
    public void close() {
    }

    @Override
    public McpJsonMapper json() {
        return json;
    }
}
