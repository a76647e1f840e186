package dev.shelly.console.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One browser's event stream: a buffer of frames, bounded in number and in characters, the {@link Hub} fills without waiting,
 * and the request's own (virtual) thread writing them out. Dropping it ends the write loop and
 * interrupts the thread, which closes the connection even when the browser stopped reading.
 */
final class Stream {
    private static final String END = new String("end");
    private static final byte[] PING = ": ping\n\n".getBytes(StandardCharsets.UTF_8);

    /** Most characters a client may fall behind by, whatever its length in changes. */
    static final long MAX_CHARS = 16L << 20;

    private final BlockingQueue<String> frames;
    private final int capacity;
    private final java.util.concurrent.atomic.AtomicLong chars = new java.util.concurrent.atomic.AtomicLong();
    private volatile Thread writer;
    private volatile boolean dropped;

    Stream(int capacity) {
        this.capacity = capacity;
        this.frames = new ArrayBlockingQueue<>(capacity + 1);
    }

    int capacity() {
        return capacity;
    }

    /** Queues a frame; false when the buffer is full. */
    boolean offer(String frame) {
        if (dropped || frames.size() >= capacity || chars.get() + frame.length() > MAX_CHARS) {
            return false;
        }
        chars.addAndGet(frame.length());
        return frames.offer(frame);
    }

    /** Ends the stream: the writer stops, and a writer blocked on a stalled connection is interrupted. */
    void drop() {
        dropped = true;
        frames.offer(END);
        Thread t = writer;
        if (t != null) {
            t.interrupt();
        }
    }

    /**
     * Writes frames until the stream is dropped or the connection fails; a comment line every
     * {@code pingSeconds} keeps an idle connection open through proxies.
     */
    void pump(OutputStream out, int pingSeconds) throws IOException {
        writer = Thread.currentThread();
        try {
            if (dropped) {
                return;
            }
            while (!dropped) {
                String frame = frames.poll(pingSeconds, TimeUnit.SECONDS);
                if (frame == END || dropped) {
                    return;
                }
                if (frame != null) {
                    chars.addAndGet(-frame.length());
                }
                out.write(frame == null ? PING : frame.getBytes(StandardCharsets.UTF_8));
                // Several queued frames go out in one flush.
                String more;
                while ((more = frames.poll()) != null) {
                    if (more == END) {
                        out.flush();
                        return;
                    }
                    chars.addAndGet(-more.length());
                    out.write(more.getBytes(StandardCharsets.UTF_8));
                }
                out.flush();
            }
        } catch (InterruptedException e) {
            // dropped, or the server stops
        } finally {
            writer = null;
            if (dropped) {
                // Whatever writes next (the end of the response) closes the connection at once
                // instead of waiting for a browser that stopped reading.
                Thread.currentThread().interrupt();
            }
        }
    }
}
