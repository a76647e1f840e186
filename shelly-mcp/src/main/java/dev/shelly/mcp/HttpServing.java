package dev.shelly.mcp;

import com.sun.net.httpserver.HttpServer;
import io.modelcontextprotocol.json.McpJsonMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side of an {@link McpToolServer} that serves streamable HTTP: the JDK's HTTP server on
 * virtual threads with the MCP handler at the endpoint's path, and a sweeper that pings the open
 * event streams and closes idle sessions every ping interval.
 */
final class HttpServing {
    private static final Logger log = LoggerFactory.getLogger(McpToolServer.class);

    private final McpToolServer.Builder settings;
    private final StreamableHttpHandler handler;
    private final HttpServer http;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private ScheduledExecutorService sweeper;

    /** Binds the address; {@link #start()} starts serving. */
    HttpServing(McpToolServer.Builder settings, McpJsonMapper json, InetSocketAddress address) {
        this.settings = settings;
        boolean loopback = address.getAddress() != null && address.getAddress().isLoopbackAddress();
        this.handler = new StreamableHttpHandler(json, settings.path, loopback, settings.allowedOrigins,
                settings.sessionTimeout);
        try {
            http = HttpServer.create(address, 0);
        } catch (IOException e) {
            threads.shutdownNow();
            throw new UncheckedIOException("MCP server '" + settings.name + "' cannot listen on " + address, e);
        }
        http.setExecutor(threads);
        http.createContext(settings.path, handler);
    }

    /** The MCP transport the SDK's server is built on. */
    StreamableHttpHandler handler() {
        return handler;
    }

    /** Starts serving and sweeping. */
    URI start() {
        http.start();
        sweeper = Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().name("mcp-http-sweeper").factory());
        long ping = settings.pingInterval.toMillis();
        sweeper.scheduleWithFixedDelay(() -> {
            try {
                handler.sweep();
            } catch (RuntimeException e) {
                log.warn("MCP server '{}': sweeping HTTP sessions failed", settings.name, e);
            }
        }, ping, ping, TimeUnit.MILLISECONDS);
        InetSocketAddress bound = http.getAddress();
        String host = bound.getAddress().getHostAddress();
        if (host.contains(":")) {
            host = "[" + host + "]";
        }
        URI url = URI.create("http://" + host + ":" + bound.getPort() + settings.path);
        log.debug("MCP server '{}' serves {}", settings.name, url);
        return url;
    }

    /** Stops sweeping, releases the port and ends the connections. */
    void stop() {
        if (sweeper != null) {
            sweeper.shutdownNow();
        }
        http.stop(0);
        threads.shutdownNow();
    }
}
