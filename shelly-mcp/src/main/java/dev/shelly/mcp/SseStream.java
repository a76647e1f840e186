package dev.shelly.mcp;

import com.sun.net.httpserver.HttpExchange;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpTransportException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/** One open SSE response: a POSTed request's answer or a session's listening stream. */
final class SseStream implements EventStream {
    private static final Logger log = LoggerFactory.getLogger(SseStream.class);

    private final McpJsonMapper json;
    private final HttpExchange exchange;
    private final OutputStream out;
    private final ReentrantLock lock = new ReentrantLock();
    private final CountDownLatch closed = new CountDownLatch(1);

    SseStream(McpJsonMapper json, HttpExchange exchange) {
        this.json = json;
        this.exchange = exchange;
        this.out = exchange.getResponseBody();
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message, String eventId) {
        return Mono.fromRunnable(() -> {
            String data = encode(message);
            String event = (eventId == null ? "" : "id: " + eventId + "\n") + "event: message\ndata: " + data + "\n\n";
            if (!write(event)) {
                throw new McpTransportException("the HTTP client of this MCP stream has gone");
            }
        });
    }

    void ping() {
        write(": ping\n\n");
    }

    /**
     * Writes and flushes; false when the stream is closed or the client has gone. The
     * thread's interrupt flag is cleared around the write (a write on an interrupted thread
     * would close the connection) and restored after it.
     */
    boolean write(String text) {
        boolean interrupted = Thread.interrupted();
        lock.lock();
        try {
            if (closed.getCount() == 0) {
                return false;
            }
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.flush();
            return true;
        } catch (IOException e) {
            log.debug("MCP SSE stream closed: {}", e.toString());
            close();
            return false;
        } finally {
            lock.unlock();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    void awaitClosed() throws InterruptedException {
        closed.await();
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromRunnable(this::close);
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (closed.getCount() == 0) {
                return;
            }
            closed.countDown();
            try {
                out.close();
            } catch (IOException e) {
                log.debug("closing an MCP SSE stream: {}", e.toString());
            }
            exchange.close();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public McpJsonMapper json() {
        return json;
    }
}
