package dev.shelly.console.internal;

import dev.shelly.agent.AgentEvent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Numbers the console's changes, keeps the last of them for clients that reconnect
 * ({@code Last-Event-ID}), and hands each to every connected client's bounded buffer. It never
 * waits for a client: one whose buffer is full is dropped (it may reconnect and catch up from the
 * history), so a slow or stalled browser never slows the engine's events.
 */
final class Hub {
    private static final Logger LOG = LoggerFactory.getLogger(Hub.class);

    private final ReentrantLock lock = new ReentrantLock();
    private final Board board;
    /** Most characters the history keeps, whatever its length in changes: large tool results fill it sooner. */
    static final long HISTORY_CHARS = 8L << 20;

    private final int history;
    private final ArrayDeque<String> frames = new ArrayDeque<>();
    private long charsKept;
    /** The number of the oldest change kept. */
    private long oldest = 1;
    private long seq;
    private long dropped;
    private final List<Stream> clients = new CopyOnWriteArrayList<>();

    Hub(Board board, int history) {
        this.board = board;
        this.history = history;
    }

    /** Takes an engine event; called on the console's bus subscription thread. */
    void accept(AgentEvent event) {
        lock.lock();
        try {
            ObjectNode change = board.apply(event);
            if (change != null) {
                send(change);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Sends a change the console made itself (a decision answered). */
    void change(Function<Board, ObjectNode> change) {
        lock.lock();
        try {
            send(change.apply(board));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Reads the board and the number of the last change at one instant, so that a page that
     * loads this and then streams from that number misses nothing.
     */
    <T> T read(Function<Board, T> reader, long[] at) {
        lock.lock();
        try {
            at[0] = seq;
            return reader.apply(board);
        } finally {
            lock.unlock();
        }
    }

    private void send(ObjectNode change) {
        long id = ++seq;
        change.put("seq", id);
        String frame = "id: " + id + "\nevent: " + change.path("type").asString("change") + "\ndata: "
                + Views.JSON.writeValueAsString(change) + "\n\n";
        frames.addLast(frame);
        charsKept += frame.length();
        while (frames.size() > history || (charsKept > HISTORY_CHARS && frames.size() > 1)) {
            charsKept -= frames.removeFirst().length();
            oldest++;
        }
        for (Stream client : clients) {
            if (!client.offer(frame)) {
                drop(client);
            }
        }
    }

    private void drop(Stream client) {
        clients.remove(client);
        dropped++;
        client.drop();
        LOG.debug("a console client fell {} changes behind and was dropped; it may reconnect", client.capacity());
    }

    /**
     * Connects a client: first the changes after {@code lastId} that the history still holds (or
     * a {@code reset} when it no longer holds them all), then every new change.
     *
     * @param lastId the last change the client had, or -1 for none (it loaded the page's state just now)
     */
    void connect(Stream client, long lastId) {
        lock.lock();
        try {
            List<String> replay = new ArrayList<>();
            if (lastId >= 0 && lastId < seq) {
                if (lastId + 1 < oldest) {
                    replay.add("event: reset\ndata: {\"type\":\"reset\",\"seq\":" + seq + "}\n\n");
                } else {
                    long id = oldest;
                    for (String frame : frames) {
                        if (id++ > lastId) {
                            replay.add(frame);
                        }
                    }
                }
            } else if (lastId > seq) {
                replay.add("event: reset\ndata: {\"type\":\"reset\",\"seq\":" + seq + "}\n\n");
            }
            for (String frame : replay) {
                if (!client.offer(frame)) {
                    client.drop();
                    dropped++;
                    return;
                }
            }
            clients.add(client);
        } finally {
            lock.unlock();
        }
    }

    void disconnect(Stream client) {
        clients.remove(client);
    }

    /** How many clients were dropped for falling behind, since the start. */
    long dropped() {
        lock.lock();
        try {
            return dropped;
        } finally {
            lock.unlock();
        }
    }

    int clients() {
        return clients.size();
    }

    long seq() {
        lock.lock();
        try {
            return seq;
        } finally {
            lock.unlock();
        }
    }

    /** Ends every client's stream (the console closes). */
    void closeAll() {
        for (Stream client : clients) {
            clients.remove(client);
            client.drop();
        }
    }
}
