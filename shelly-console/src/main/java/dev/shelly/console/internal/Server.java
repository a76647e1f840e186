package dev.shelly.console.internal;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.shelly.agent.AgentEvent;
import dev.shelly.engine.Engine;
import dev.shelly.engine.EventBus;
import dev.shelly.storage.SessionNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The console's HTTP server: the JDK's own, one virtual thread per request. The page (HTML, CSS,
 * JavaScript, the same for everyone and without data) is served to anyone who can reach the
 * port; everything under {@code /api/} needs the token in an {@code Authorization: Bearer}
 * header, and whatever changes something is a POST.
 */
public final class Server implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Server.class);
    private static final Pattern SESSION = Pattern.compile("/api/sessions/([A-Za-z0-9._-]{1,128})");
    private static final Pattern DECISION = Pattern.compile("/api/sessions/([A-Za-z0-9._-]{1,128})/decisions/([^/]{1,200})");
    private static final Pattern CANCEL = Pattern.compile("/api/sessions/([A-Za-z0-9._-]{1,128})/cancel");
    private static final Map<String, String> FILES = Map.of(
            "/", "index.html", "/index.html", "index.html", "/console.js", "console.js", "/console.css", "console.css");
    private static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
    private static final int MAX_BODY = 256 * 1024;

    private final byte[] token;
    private final HttpServer http;
    private final ExecutorService threads;
    private final Hub hub;
    private final Pages pages;
    private final Steer steer;
    private final EventBus.Subscription subscription;
    private final int clientBuffer;
    private final int pingSeconds;

    /**
     * Starts serving.
     *
     * @param engine the engine shown
     * @param bind the address to listen on
     * @param port the port, 0 for a free one
     * @param token the token every API request must carry
     * @param clientBuffer the changes a client may fall behind by before it is dropped
     * @param history the changes kept for clients that reconnect
     * @param pingSeconds how often an idle stream gets a comment line
     * @throws UncheckedIOException when the address cannot be bound
     */
    public Server(Engine engine, String bind, int port, String token, int clientBuffer, int history, int pingSeconds) {
        this.token = token.getBytes(StandardCharsets.UTF_8);
        this.clientBuffer = clientBuffer;
        this.pingSeconds = pingSeconds;
        this.hub = new Hub(new Board(engine.prices(), Clock.systemUTC()), history);
        this.pages = new Pages(engine, hub);
        this.steer = new Steer(engine, hub);
        try {
            this.http = HttpServer.create(new InetSocketAddress(bind, port), 0);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + bind + ":" + port + ": " + e.getMessage(), e);
        }
        this.threads = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("shelly-console-", 0).factory());
        http.setExecutor(threads);
        http.createContext("/", this::handle);
        try {
            this.subscription = engine.events().subscribe(this::accept);
        } catch (RuntimeException e) {
            http.stop(0);
            threads.shutdownNow();
            throw e;
        }
        http.start();
    }

    private void accept(AgentEvent event) {
        hub.accept(event);
    }

    /**
     * The port the server listens on.
     *
     * @return the port
     */
    public int port() {
        return http.getAddress().getPort();
    }

    /**
     * How many clients were dropped for falling behind.
     *
     * @return the count
     */
    public long droppedClients() {
        return hub.dropped();
    }

    /**
     * How many event streams are connected.
     *
     * @return the count
     */
    public int connectedClients() {
        return hub.clients();
    }

    private void handle(HttpExchange ex) {
        try (ex) {
            respond(ex);
        } catch (IOException | RuntimeException e) {
            LOG.debug("console request failed: {}", e.toString());
        }
    }

    private void respond(HttpExchange ex) throws IOException {
        try {
            Headers out = ex.getResponseHeaders();
            out.set("X-Content-Type-Options", "nosniff");
            out.set("Referrer-Policy", "no-referrer");
            out.set("Cache-Control", "no-store");
            out.set("X-Frame-Options", "DENY");
            String path = ex.getRequestURI().getRawPath();
            String method = ex.getRequestMethod();
            if (!path.startsWith("/api/")) {
                serveFile(ex, path, method);
                return;
            }
            if (!authorized(ex)) {
                out.set("WWW-Authenticate", "Bearer");
                json(ex, 401, "{\"error\":\"a valid token is required (Authorization: Bearer ...)\"}");
                return;
            }
            try {
                api(ex, path, method);
            } catch (SessionNotFoundException e) {
                error(ex, 404, e.getMessage());
            } catch (IllegalArgumentException e) {
                error(ex, 400, e.getMessage());
            } catch (IllegalStateException e) {
                error(ex, 409, e.getMessage());
            }
        } catch (RuntimeException e) {
            failed(ex, e);
        }
    }

    /**
     * A request the console could not answer for a reason of its own: logged in full, and a 500
     * with a short body when nothing was sent yet (never the stack trace, nor the message, which
     * may name files or hosts).
     */
    private static void failed(HttpExchange ex, RuntimeException e) {
        LOG.warn("console request {} {} failed", ex.getRequestMethod(), ex.getRequestURI().getRawPath(), e);
        if (ex.getResponseCode() != -1) {
            return;
        }
        try {
            json(ex, 500, "{\"error\":\"the console could not answer this request; its log says why\"}");
        } catch (IOException | RuntimeException gone) {
            LOG.debug("console could not send its 500: {}", gone.toString());
        }
    }

    private void api(HttpExchange ex, String path, String method) throws IOException {
        Matcher m;
        if (path.equals("/api/events")) {
            if (!only(ex, method, "GET")) {
                return;
            }
            events(ex);
        } else if (path.equals("/api/sessions")) {
            if (only(ex, method, "GET")) {
                json(ex, 200, Views.JSON.writeValueAsString(pages.sessions()));
            }
        } else if ((m = DECISION.matcher(path)).matches()) {
            if (only(ex, method, "POST")) {
                JsonNode body = body(ex);
                if (body != null) {
                    boolean went = steer.answer(m.group(1), java.net.URLDecoder.decode(m.group(2), StandardCharsets.UTF_8),
                            body);
                    json(ex, 200, "{\"ok\":true,\"proceeded\":" + went + "}");
                }
            }
        } else if ((m = CANCEL.matcher(path)).matches()) {
            if (only(ex, method, "POST")) {
                JsonNode body = body(ex);
                if (body != null) {
                    boolean done = steer.cancel(m.group(1), body.path("run").asString(null));
                    json(ex, 200, "{\"ok\":true,\"cancelled\":" + done + "}");
                }
            }
        } else if ((m = SESSION.matcher(path)).matches()) {
            if (only(ex, method, "GET")) {
                json(ex, 200, Views.JSON.writeValueAsString(pages.session(m.group(1))));
            }
        } else {
            json(ex, 404, "{\"error\":\"no such resource\"}");
        }
    }

    private void events(HttpExchange ex) throws IOException {
        long last = -1;
        String header = ex.getRequestHeaders().getFirst("Last-Event-ID");
        if (header != null && !header.isBlank()) {
            try {
                last = Long.parseLong(header.strip());
            } catch (NumberFormatException e) {
                json(ex, 400, "{\"error\":\"Last-Event-ID must be a number\"}");
                return;
            }
        }
        Stream stream = new Stream(clientBuffer);
        ex.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
        ex.sendResponseHeaders(200, 0);
        OutputStream body = ex.getResponseBody();
        body.write((": shelly console\nretry: 1000\n\n").getBytes(StandardCharsets.UTF_8));
        body.flush();
        hub.connect(stream, last);
        try {
            stream.pump(body, pingSeconds);
        } finally {
            hub.disconnect(stream);
        }
    }

    private boolean authorized(HttpExchange ex) {
        String auth = ex.getRequestHeaders().getFirst("Authorization");
        if (auth == null || !auth.startsWith("Bearer ")) {
            return false;
        }
        byte[] given = auth.substring("Bearer ".length()).strip().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(given, token);
    }

    private static boolean only(HttpExchange ex, String method, String allowed) throws IOException {
        if (method.equals(allowed)) {
            return true;
        }
        ex.getResponseHeaders().set("Allow", allowed);
        json(ex, 405, "{\"error\":\"use " + allowed + "\"}");
        return false;
    }

    /** The request's JSON body; null (after a 400) when it is not a JSON object. */
    private static JsonNode body(HttpExchange ex) throws IOException {
        byte[] bytes;
        try (InputStream in = ex.getRequestBody()) {
            bytes = in.readNBytes(MAX_BODY + 1);
        }
        if (bytes.length > MAX_BODY) {
            json(ex, 413, "{\"error\":\"the body is too large\"}");
            return null;
        }
        try {
            JsonNode node = bytes.length == 0 ? Views.object() : Views.JSON.readTree(bytes);
            if (node.isObject()) {
                return node;
            }
        } catch (JacksonException e) {
            // answered below
        }
        json(ex, 400, "{\"error\":\"the body must be a JSON object\"}");
        return null;
    }

    private static void error(HttpExchange ex, int status, String message) throws IOException {
        json(ex, status, Views.JSON.writeValueAsString(Views.object().put("error", message)));
    }

    private static void json(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
        ex.sendResponseHeaders(status, bytes.length);
        ex.getResponseBody().write(bytes);
    }

    private void serveFile(HttpExchange ex, String path, String method) throws IOException {
        String file = FILES.get(path);
        if (file == null) {
            json(ex, 404, "{\"error\":\"no such resource\"}");
            return;
        }
        if (!method.equals("GET") && !method.equals("HEAD")) {
            ex.getResponseHeaders().set("Allow", "GET, HEAD");
            json(ex, 405, "{\"error\":\"use GET\"}");
            return;
        }
        byte[] bytes;
        try (InputStream in = Server.class.getResourceAsStream("web/" + file)) {
            if (in == null) {
                throw new IllegalStateException("the console's " + file + " is missing from the jar");
            }
            bytes = in.readAllBytes();
        }
        String type = file.endsWith(".html") ? "text/html" : file.endsWith(".css") ? "text/css" : "text/javascript";
        ex.getResponseHeaders().set("Content-Type", type + "; charset=utf-8");
        ex.getResponseHeaders().set("Content-Security-Policy", CSP);
        if (method.equals("HEAD")) {
            ex.sendResponseHeaders(200, -1);
            return;
        }
        ex.sendResponseHeaders(200, bytes.length);
        ex.getResponseBody().write(bytes);
    }

    /** Stops listening, ends every stream and the bus subscription. */
    @Override
    public void close() {
        subscription.close();
        hub.closeAll();
        http.stop(0);
        threads.shutdownNow();
    }
}
