package dev.shelly.mcp;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The server side of MCP's streamable HTTP transport on the JDK's built-in HTTP server.
 *
 * <p>A POST of {@code initialize} opens a session and is answered with JSON and an
 * {@code Mcp-Session-Id}; every later POSTed request is answered on its own SSE stream (which
 * also carries messages the server sends while handling it); POSTed notifications and responses
 * get 202; a GET opens the session's listening SSE stream, which carries
 * {@code tools/list_changed}; a DELETE ends the session. Unknown sessions get 404, so clients
 * start over. Requests from browsers of other origins are refused (403), and, when the server
 * listens on a loopback address, so are requests naming another host (421), which stops DNS
 * rebinding. Listening streams get an SSE comment every ping interval, so dead connections are
 * found; sessions idle for the session timeout without an open stream are closed.
 */
final class StreamableHttpHandler implements McpStreamableServerTransportProvider, HttpHandler {
    private static final Logger log = LoggerFactory.getLogger(StreamableHttpHandler.class);
    private static final String SESSION = "Mcp-Session-Id";
    private static final int MAX_BODY = 16 * 1024 * 1024;
    /** How long a finished stream's events stay for a client that reconnects late. */
    private static final Duration REPLAYABLE = Duration.ofMinutes(5);
    /** Where a served call finds the stream it is answered on, in the request's transport context. */
    static final String STREAM_KEY = "dev.shelly.mcp.stream";

    private final McpJsonMapper json;
    private final String path;
    private final OriginGuard guard;
    private final Duration sessionTimeout;
    private final Map<String, McpStreamableServerSession> sessions = new ConcurrentHashMap<>();
    private final Map<String, Long> lastUse = new ConcurrentHashMap<>();
    /** The protocol revision each session negotiated. */
    private final Map<String, String> revisions = new ConcurrentHashMap<>();
    private final Set<SseStream> listening = ConcurrentHashMap.newKeySet();
    /** The resumable streams of POSTed requests, by stream id, until a while after they finish. */
    private final Map<String, ResumableStream> streams = new ConcurrentHashMap<>();
    private volatile McpStreamableServerSession.Factory sessionFactory;
    private volatile boolean closing;

    StreamableHttpHandler(McpJsonMapper json, String path, boolean loopback, Set<String> allowedOrigins,
            Duration sessionTimeout) {
        this.json = json;
        this.path = path;
        this.guard = new OriginGuard(loopback, allowedOrigins);
        this.sessionTimeout = sessionTimeout;
    }

    @Override
    public void setSessionFactory(McpStreamableServerSession.Factory factory) {
        this.sessionFactory = factory;
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        return Flux.fromIterable(new ArrayList<>(sessions.values()))
                .flatMap(session -> session.sendNotification(method, params).onErrorResume(e -> {
                    log.debug("could not send {} to MCP session {}: {}", method, session.getId(), e.toString());
                    return Mono.empty();
                }))
                .then();
    }

    @Override
    public Mono<Void> notifyClient(String sessionId, String method, Object params) {
        return Mono.defer(() -> {
            McpStreamableServerSession session = sessions.get(sessionId);
            return session == null ? Mono.empty() : session.sendNotification(method, params);
        });
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.defer(() -> {
            closing = true;
            List<McpStreamableServerSession> open = new ArrayList<>(sessions.values());
            sessions.clear();
            lastUse.clear();
            return Flux.fromIterable(open)
                    .flatMap(session -> session.closeGracefully().onErrorResume(e -> Mono.empty()))
                    .then(Mono.fromRunnable(() -> listening.forEach(SseStream::close)));
        });
    }

    @Override
    public List<String> protocolVersions() {
        return List.of("2025-03-26", "2025-06-18", "2025-11-25");
    }

    /** Pings every listening stream (dead ones close) and closes sessions idle for too long. */
    void sweep() {
        for (SseStream stream : listening) {
            stream.ping();
        }
        long now = System.nanoTime();
        streams.values().removeIf(stream -> !sessions.containsKey(stream.session) || stream.finishedBefore(now - REPLAYABLE.toNanos()));
        for (Map.Entry<String, McpStreamableServerSession> entry : sessions.entrySet()) {
            McpStreamableServerSession session = entry.getValue();
            Long used = lastUse.get(entry.getKey());
            if (used != null && now - used > TimeUnit.NANOSECONDS.convert(sessionTimeout) && !session.hasOpenStream()
                    && sessions.remove(entry.getKey(), session)) {
                lastUse.remove(entry.getKey());
                revisions.remove(entry.getKey());
                log.debug("closing MCP session {}: idle for more than {}", entry.getKey(), sessionTimeout);
                session.closeGracefully().onErrorResume(e -> Mono.empty()).subscribe();
            }
        }
    }

    @Override
    public void handle(HttpExchange exchange) {
        Exchange ex = new Exchange(json, exchange);
        try {
            if (!path.equals(exchange.getRequestURI().getPath())) {
                ex.status(404);
            } else if (closing) {
                ex.status(503);
            } else if (guard.refused(ex) || unsupportedVersion(ex)) {
                return;
            } else {
                switch (exchange.getRequestMethod()) {
                    case "POST" -> post(ex);
                    case "GET" -> get(ex);
                    case "DELETE" -> delete(ex);
                    default -> {
                        exchange.getResponseHeaders().set("Allow", "GET, POST, DELETE");
                        ex.status(405);
                    }
                }
            }
        } catch (Exception e) {
            log.warn("MCP HTTP request {} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
            ex.error(500, McpSchema.ErrorCodes.INTERNAL_ERROR, "internal error: " + e.getMessage());
        } finally {
            ex.close();
        }
    }

    /**
     * Refuses (400) a request whose {@code MCP-Protocol-Version} header names a revision this
     * server does not speak; a request without it is taken as 2025-03-26, as the spec says.
     */
    private boolean unsupportedVersion(Exchange ex) {
        String version = ex.header("MCP-Protocol-Version");
        if (version == null || protocolVersions().contains(version.strip())) {
            return false;
        }
        ex.error(400, McpSchema.ErrorCodes.INVALID_REQUEST, "MCP-Protocol-Version " + version
                + " is not supported; supported: " + String.join(", ", protocolVersions()));
        return true;
    }

    private void post(Exchange ex) throws IOException {
        String contentType = ex.header("Content-Type");
        if (contentType == null || !contentType.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            ex.error(415, McpSchema.ErrorCodes.INVALID_REQUEST, "Content-Type must be application/json");
            return;
        }
        byte[] body;
        try (InputStream in = ex.exchange.getRequestBody()) {
            body = in.readNBytes(MAX_BODY + 1);
        }
        if (body.length > MAX_BODY) {
            ex.error(413, McpSchema.ErrorCodes.INVALID_REQUEST, "the message is larger than " + MAX_BODY + " bytes");
            return;
        }
        String text = new String(body, StandardCharsets.UTF_8);
        if (text.stripLeading().startsWith("[")) {
            batch(ex, text);
            return;
        }
        McpSchema.JSONRPCMessage message;
        try {
            message = McpSchema.deserializeJsonRpcMessage(json, text);
        } catch (IOException | RuntimeException e) {
            ex.error(400, McpSchema.ErrorCodes.PARSE_ERROR, "not a JSON-RPC message: " + e.getMessage());
            return;
        }
        McpTransportContext context = context(ex);
        if (message instanceof McpSchema.JSONRPCRequest request && McpSchema.METHOD_INITIALIZE.equals(request.method())) {
            initialize(ex, request);
            return;
        }
        McpStreamableServerSession session = session(ex);
        if (session == null) {
            return;
        }
        switch (message) {
            case McpSchema.JSONRPCResponse response -> {
                session.accept(response).contextWrite(c -> c.put(McpTransportContext.KEY, context)).block();
                ex.status(202);
            }
            case McpSchema.JSONRPCNotification notification -> {
                session.accept(notification).contextWrite(c -> c.put(McpTransportContext.KEY, context)).block();
                ex.status(202);
            }
            case McpSchema.JSONRPCRequest request -> {
                if (!ex.accepts("text/event-stream")) {
                    ex.error(406, McpSchema.ErrorCodes.INVALID_REQUEST, "Accept must include text/event-stream");
                    return;
                }
                ResumableStream stream = new ResumableStream(json, session.getId(), ex.startSse());
                streams.put(stream.id, stream);
                McpTransportContext withStream = context(ex, stream);
                try {
                    session.responseStream(stream).handle(request)
                            .contextWrite(c -> c.put(McpTransportContext.KEY, withStream)).block();
                } catch (RuntimeException e) {
                    log.debug("MCP request {} in session {} ended: {}", request.method(), session.getId(), e.toString());
                } finally {
                    stream.finish();
                }
            }
            default -> ex.error(400, McpSchema.ErrorCodes.INVALID_REQUEST, "unknown kind of JSON-RPC message");
        }
    }

    /**
     * A JSON-RPC batch: only 2025-03-26 has them, so only a session that negotiated it may send
     * one (later revisions removed them: 400). Notifications and responses are taken in order;
     * the requests are answered together on one (resumable) SSE stream.
     */
    private void batch(Exchange ex, String text) throws IOException {
        McpStreamableServerSession session = session(ex);
        if (session == null) {
            return;
        }
        String revision = revisions.getOrDefault(session.getId(), "2025-03-26");
        if (!revision.equals("2025-03-26")) {
            ex.error(400, McpSchema.ErrorCodes.INVALID_REQUEST, "JSON-RPC batches are not part of MCP " + revision
                    + ", which this session negotiated");
            return;
        }
        List<McpSchema.JSONRPCMessage> messages = new ArrayList<>();
        try {
            for (Object element : json.readValue(text, new TypeRef<List<Object>>() {})) {
                messages.add(McpSchema.deserializeJsonRpcMessage(json, json.writeValueAsString(element)));
            }
        } catch (IOException | RuntimeException e) {
            ex.error(400, McpSchema.ErrorCodes.PARSE_ERROR, "not a batch of JSON-RPC messages: " + e.getMessage());
            return;
        }
        if (messages.isEmpty()) {
            ex.error(400, McpSchema.ErrorCodes.INVALID_REQUEST, "an empty JSON-RPC batch");
            return;
        }
        McpTransportContext context = context(ex);
        List<McpSchema.JSONRPCRequest> requests = new ArrayList<>();
        for (McpSchema.JSONRPCMessage message : messages) {
            switch (message) {
                case McpSchema.JSONRPCRequest request when McpSchema.METHOD_INITIALIZE.equals(request.method()) -> {
                    ex.error(400, McpSchema.ErrorCodes.INVALID_REQUEST, "initialize cannot be part of a batch");
                    return;
                }
                case McpSchema.JSONRPCRequest request -> requests.add(request);
                case McpSchema.JSONRPCResponse response ->
                        session.accept(response).contextWrite(c -> c.put(McpTransportContext.KEY, context)).block();
                case McpSchema.JSONRPCNotification notification ->
                        session.accept(notification).contextWrite(c -> c.put(McpTransportContext.KEY, context)).block();
                default -> {
                    ex.error(400, McpSchema.ErrorCodes.INVALID_REQUEST, "unknown kind of JSON-RPC message in a batch");
                    return;
                }
            }
        }
        if (requests.isEmpty()) {
            ex.status(202);
            return;
        }
        if (!ex.accepts("text/event-stream")) {
            ex.error(406, McpSchema.ErrorCodes.INVALID_REQUEST, "Accept must include text/event-stream");
            return;
        }
        ResumableStream stream = new ResumableStream(json, session.getId(), ex.startSse());
        streams.put(stream.id, stream);
        try {
            Flux.fromIterable(requests)
                    .flatMap(request -> session.responseStream(stream).handle(request)
                            .contextWrite(c -> c.put(McpTransportContext.KEY, context))
                            .onErrorResume(e -> {
                                log.debug("MCP request {} in a batch of session {} ended: {}", request.method(),
                                        session.getId(), e.toString());
                                return Mono.empty();
                            }))
                    .then().block();
        } finally {
            stream.finish();
        }
    }

    private void initialize(Exchange ex, McpSchema.JSONRPCRequest request) throws IOException {
        if (!ex.accepts("application/json")) {
            ex.error(406, McpSchema.ErrorCodes.INVALID_REQUEST, "Accept must include application/json");
            return;
        }
        McpSchema.InitializeRequest params = json.convertValue(request.params(), new TypeRef<McpSchema.InitializeRequest>() {});
        McpStreamableServerSession.McpStreamableServerSessionInit init = sessionFactory.startSession(params);
        String id = init.session().getId();
        sessions.put(id, init.session());
        lastUse.put(id, System.nanoTime());
        McpSchema.InitializeResult result = init.initResult().block();
        if (result != null && result.protocolVersion() != null) {
            revisions.put(id, result.protocolVersion());
        }
        ex.exchange.getResponseHeaders().set(SESSION, id);
        ex.json(200, McpSchema.JSONRPCResponse.result(request.id(), result));
    }

    private void get(Exchange ex) throws IOException {
        if (!ex.accepts("text/event-stream")) {
            ex.error(405, McpSchema.ErrorCodes.INVALID_REQUEST, "a GET must accept text/event-stream");
            return;
        }
        McpStreamableServerSession session = session(ex);
        if (session == null) {
            return;
        }
        String lastEventId = ex.header("Last-Event-ID");
        ResumableStream resumed = lastEventId == null ? null : streams.get(ResumableStream.streamOf(lastEventId));
        if (resumed != null && resumed.session.equals(session.getId())) {
            SseStream connection = ex.startSse();
            resumed.attach(connection, ResumableStream.indexOf(lastEventId));
            try {
                connection.awaitClosed();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        SseStream stream = ex.startSse();
        McpStreamableServerSession.McpStreamableServerSessionStream events = session.listeningStream(stream);
        listening.add(stream);
        try {
            stream.awaitClosed();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            listening.remove(stream);
            events.releaseTransport();
        }
    }

    private void delete(Exchange ex) throws IOException {
        McpStreamableServerSession session = session(ex);
        if (session == null) {
            return;
        }
        sessions.remove(session.getId());
        lastUse.remove(session.getId());
        revisions.remove(session.getId());
        session.delete().contextWrite(c -> c.put(McpTransportContext.KEY, context(ex))).block();
        ex.status(200);
    }

    /** The session the request names, or null after answering 400 or 404. */
    private McpStreamableServerSession session(Exchange ex) throws IOException {
        String id = ex.header(SESSION);
        if (id == null || id.isBlank()) {
            ex.error(400, McpSchema.ErrorCodes.INVALID_REQUEST, "the Mcp-Session-Id header is missing; initialize first");
            return null;
        }
        McpStreamableServerSession session = sessions.get(id);
        if (session == null) {
            ex.error(404, McpSchema.ErrorCodes.INVALID_REQUEST, "no MCP session " + id + "; initialize again");
            return null;
        }
        lastUse.put(id, System.nanoTime());
        return session;
    }

    /** The request's headers, lower-cased, for tools that look at the transport context. */
    private static McpTransportContext context(Exchange ex) {
        return context(ex, null);
    }

    /** The request's headers, and the stream it is answered on (for {@link McpServerCall#closeStream()}). */
    private static McpTransportContext context(Exchange ex, ResumableStream stream) {
        Map<String, Object> headers = new LinkedHashMap<>();
        if (stream != null) {
            headers.put(STREAM_KEY, stream);
        }
        ex.exchange.getRequestHeaders().forEach((name, values) -> {
            if (!values.isEmpty()) {
                headers.put(name.toLowerCase(Locale.ROOT), values.get(0));
            }
        });
        return McpTransportContext.create(headers);
    }
}
