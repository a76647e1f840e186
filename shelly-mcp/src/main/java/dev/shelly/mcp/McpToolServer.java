package dev.shelly.mcp;

import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Serves a {@link ToolBox} as an MCP server, over stdio or streamable HTTP, so that any MCP
 * client (Claude Desktop, Cursor, the MCP SDKs) can call its tools.
 *
 * <pre>{@code
 * public static void main(String[] args) {
 *     McpToolServer.builder(ToolBox.of(weather)).serverInfo("weather", "1.0.0").build().serveStdio();
 *     System.exit(0);
 * }
 * // or:
 * try (McpToolServer server = McpToolServer.builder(box).build().startHttp(8080)) {
 *     server.url();   // http://127.0.0.1:8080/mcp
 * }
 * }</pre>
 *
 * <p>Each {@code tools/call} goes through {@link ToolBox#call} on a virtual thread, with a
 * {@link ToolContext} naming the MCP client as the agent: arguments that do not fit the schema,
 * handler exceptions and timeouts come back as results with {@code isError: true} and the
 * toolbox's message. Tools registered in or removed from the toolbox later are offered (right
 * after the change, on a thread of the server's) and announced with {@code tools/list_changed}.
 */
public final class McpToolServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(McpToolServer.class);

    private final Builder settings;
    private final McpJsonMapper mcpJson;
    private final ServedTools tools;
    private final ReentrantLock sync = new ReentrantLock();
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private McpAsyncServer server;
    private HttpServing http;
    private URI url;

    private McpToolServer(Builder settings) {
        this.settings = settings;
        JsonMapper json = WireJson.mapper();
        this.mcpJson = new JacksonMcpJsonMapper(json);
        this.tools = new ServedTools(settings, json);
    }

    /**
     * Starts configuring a server for a toolbox.
     *
     * @param box the tools to offer
     * @return the builder
     */
    public static Builder builder(ToolBox box) {
        return new Builder(box);
    }

    /**
     * The URL of the MCP endpoint of an HTTP server, e.g. {@code http://127.0.0.1:8080/mcp}.
     *
     * @return the URL, or empty for a stdio server
     */
    public Optional<URI> url() {
        return Optional.ofNullable(url);
    }

    /**
     * Waits until the server has stopped: for stdio when the client closes stdin, for either
     * when {@link #close()} is called.
     *
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public void awaitTermination() throws InterruptedException {
        try {
            terminated.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("MCP server failed", e.getCause());
        }
    }

    /**
     * Serves the client on this process's stdin and stdout until it closes stdin, then stops.
     * Stdout carries the protocol only: {@code System.out} is pointed at {@code System.err}
     * first, so stray prints and console loggers that use {@code System.out} cannot corrupt it.
     * The MCP SDK leaves non-daemon threads behind, so a {@code main} method should call
     * {@code System.exit} after this returns.
     *
     * @throws IllegalStateException when the server was started already
     */
    public void serveStdio() {
        startStdio();
        try {
            awaitTermination();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            close();
        }
    }

    /**
     * Starts serving one client on this process's stdin and stdout, pointing
     * {@code System.out} at {@code System.err} (see {@link #serveStdio()}).
     *
     * @return this server, running
     */
    public McpToolServer startStdio() {
        PrintStream protocol = System.out;
        System.setOut(System.err);
        return startStdio(System.in, protocol);
    }

    /**
     * Starts serving one client on the given streams; the server stops when {@code in} ends.
     *
     * @param in where the client's messages arrive
     * @param out where the server's messages go; nothing else may write to it
     * @return this server, running
     */
    public McpToolServer startStdio(InputStream in, OutputStream out) {
        if (in == null || out == null) {
            throw new IllegalArgumentException("McpToolServer.startStdio needs an input and an output stream");
        }
        InputStream watched = new WatchedInput(in, () -> terminated.complete(null));
        start(McpServer.async(new StdioServerTransportProvider(mcpJson, watched, out)));
        return this;
    }

    /**
     * Starts serving streamable HTTP on the loopback address.
     *
     * @param port the port, or 0 for any free one (see {@link #url()})
     * @return this server, running
     * @throws java.io.UncheckedIOException when the port cannot be bound
     */
    public McpToolServer startHttp(int port) {
        return startHttp(new InetSocketAddress("127.0.0.1", port));
    }

    /**
     * Starts serving streamable HTTP. On a loopback address only requests naming a loopback
     * host are served (against DNS rebinding); on any address, browsers of other origins than
     * the allowed ones are refused. There is no authentication: bind to a public address only
     * behind a proxy that adds it.
     *
     * @param address where to listen
     * @return this server, running
     * @throws java.io.UncheckedIOException when the address cannot be bound
     */
    public McpToolServer startHttp(InetSocketAddress address) {
        Require.notNull(address, "McpToolServer.startHttp address");
        HttpServing serving = new HttpServing(settings, mcpJson, address);
        try {
            start(McpServer.async(serving.handler()));
        } catch (RuntimeException e) {
            serving.stop();
            throw e;
        }
        http = serving;
        url = serving.start();
        return this;
    }

    private void start(McpServer.AsyncSpecification<?> spec) {
        McpAsyncServer started;
        sync.lock();
        try {
            if (server != null || closed.get()) {
                throw new IllegalStateException("MCP server '" + settings.name + "' was started already");
            }
            McpSchema.ServerCapabilities.Builder capabilities = McpSchema.ServerCapabilities.builder().tools(true).logging();
            new ServedFeatures(settings.name, tools.threads()).register(spec, capabilities, settings);
            server = spec.serverInfo(settings.name, settings.version)
                    .instructions(settings.instructions)
                    .capabilities(capabilities.build())
                    .validateToolInputs(false)
                    .jsonMapper(mcpJson)
                    .tools(tools.follow())
                    .build();
            started = server;
        } finally {
            sync.unlock();
        }
        tools.started(started);
    }

    /**
     * Tells the clients subscribed to a resource that it changed
     * ({@code notifications/resources/updated}).
     *
     * @param uri the resource's URI
     * @throws IllegalStateException when the server is not running
     */
    public void resourceUpdated(String uri) {
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException("McpToolServer.resourceUpdated uri must not be null or blank");
        }
        McpAsyncServer running = running();
        if (running == null || closed.get()) {
            throw new IllegalStateException("MCP server '" + settings.name + "' is not running; resource " + uri
                    + " cannot be announced");
        }
        ServedTools.change(running.notifyResourcesUpdated(new McpSchema.ResourcesUpdatedNotification(uri)), settings.name,
                "announce resource", uri);
    }

    /**
     * Stops serving: ends every session, releases the port, and stops following the toolbox.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        tools.unfollow();
        McpAsyncServer running = running();
        if (running != null) {
            try {
                running.closeGracefully().block(Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                log.debug("closing MCP server '{}': {}", settings.name, e.toString());
            }
        }
        if (http != null) {
            http.stop();
        }
        tools.close();
        terminated.complete(null);
    }

    private McpAsyncServer running() {
        sync.lock();
        try {
            return server;
        } finally {
            sync.unlock();
        }
    }

    @Override
    public String toString() {
        return "McpToolServer[" + settings.name + (url == null ? "" : ", " + url) + "]";
    }

    /**
     * Runs one {@code tools/call} the server serves; see {@link Builder#callWrapper}.
     */
    @FunctionalInterface
    public interface CallWrapper {
        /**
         * Runs a call, on the thread that serves it.
         *
         * @param tool the tool's name
         * @param meta the request's {@code _meta}; empty when it had none
         * @param call runs the tool and returns its result
         * @return the result to send; normally what {@code call} returned
         */
        ToolResult call(String tool, Map<String, Object> meta, Supplier<ToolResult> call);
    }

    /**
     * Completes an argument of a prompt or resource template ({@code completion/complete}).
     */
    @FunctionalInterface
    public interface ArgumentCompleter {
        /**
         * Suggests values.
         *
         * @param argument the argument's name
         * @param value what the user has typed so far
         * @return values, best first; the first 100 are sent
         * @throws Exception any failure, which the client gets as an error
         */
        List<String> complete(String argument, String value) throws Exception;
    }

    /** Settings of a server; {@link #build()} makes it, ready to start. */
    public static final class Builder {
        final ToolBox box;
        String name = "shelly";
        String version = "0";
        String instructions;
        String path = "/mcp";
        final Set<String> allowedOrigins = new LinkedHashSet<>();
        Duration sessionTimeout = Duration.ofMinutes(30);
        Duration pingInterval = Duration.ofSeconds(15);
        CallWrapper wrapper = (tool, meta, call) -> call.get();
        final Map<String, McpResource> resources = new LinkedHashMap<>();
        final Map<String, McpPrompt> prompts = new LinkedHashMap<>();
        final Map<String, ArgumentCompleter> completions = new LinkedHashMap<>();
        final Map<String, String> outputSchemas = new LinkedHashMap<>();

        private Builder(ToolBox box) {
            this.box = Require.notNull(box, "McpToolServer.builder box");
        }

        /**
         * The name and version the server gives clients.
         *
         * @param name e.g. {@code "weather"}
         * @param version e.g. {@code "1.0.0"}
         * @return this builder
         */
        public Builder serverInfo(String name, String version) {
            if (name == null || name.isBlank() || version == null || version.isBlank()) {
                throw new IllegalArgumentException("McpToolServer serverInfo needs a name and a version");
            }
            this.name = name;
            this.version = version;
            return this;
        }

        /**
         * Tells clients how to use the server's tools.
         *
         * @param text the instructions
         * @return this builder
         */
        public Builder instructions(String text) {
            this.instructions = Require.notNull(text, "McpToolServer instructions text");
            return this;
        }

        /**
         * The HTTP path of the MCP endpoint; {@code /mcp} by default.
         *
         * @param path starts with {@code /}
         * @return this builder
         */
        public Builder path(String path) {
            if (path == null || !path.startsWith("/")) {
                throw new IllegalArgumentException("McpToolServer path must start with '/', was " + path);
            }
            this.path = path;
            return this;
        }

        /**
         * Origins whose browsers may call the HTTP server, e.g. {@code https://app.example.com};
         * on a loopback address, localhost origins are always allowed.
         *
         * @param origins scheme, host and port, as browsers send them
         * @return this builder
         */
        public Builder allowedOrigins(String... origins) {
            Require.notNull(origins, "McpToolServer allowedOrigins origins");
            for (String origin : origins) {
                if (origin == null || origin.isBlank()) {
                    throw new IllegalArgumentException("McpToolServer allowedOrigins must not hold null or blank");
                }
                allowedOrigins.add(origin.toLowerCase(Locale.ROOT));
            }
            return this;
        }

        /**
         * How long an HTTP session without an open stream may stay unused before it is closed;
         * 30 minutes by default.
         *
         * @param timeout the limit
         * @return this builder
         */
        public Builder sessionTimeout(Duration timeout) {
            this.sessionTimeout = Require.positive(timeout, "McpToolServer sessionTimeout");
            return this;
        }

        /**
         * How often open HTTP event streams get a keep-alive comment, which also finds clients
         * that have gone; 15 s by default.
         *
         * @param interval the interval
         * @return this builder
         */
        public Builder pingInterval(Duration interval) {
            this.pingInterval = Require.positive(interval, "McpToolServer pingInterval");
            return this;
        }

        /**
         * Runs every {@code tools/call} through a wrapper, on the thread that serves it: how a
         * server continues the trace a request carries in its {@code _meta}
         * ({@code ShellyTelemetry::continueMcpCall}).
         *
         * @param wrapper the wrapper
         * @return this builder
         */
        public Builder callWrapper(CallWrapper wrapper) {
            this.wrapper = Require.notNull(wrapper, "McpToolServer callWrapper");
            return this;
        }

        /**
         * Offers a resource, or a resource template when its URI has {@code {variables}};
         * clients may list, read and subscribe to it (see {@link McpToolServer#resourceUpdated}).
         *
         * @param resource the resource
         * @return this builder
         */
        public Builder resource(McpResource resource) {
            Require.notNull(resource, "McpToolServer resource");
            return once(resources, resource.uri(), resource, "resource " + resource.uri());
        }

        /**
         * Offers a prompt.
         *
         * @param prompt the prompt
         * @return this builder
         */
        public Builder prompt(McpPrompt prompt) {
            Require.notNull(prompt, "McpToolServer prompt");
            return once(prompts, prompt.name(), prompt, "prompt '" + prompt.name() + "'");
        }

        /**
         * Completes the arguments of a prompt (by name) or of a resource template (by its URI
         * template).
         *
         * @param reference the prompt's name or the template's URI
         * @param completer suggests values
         * @return this builder
         */
        public Builder completion(String reference, ArgumentCompleter completer) {
            if (reference == null || reference.isBlank()) {
                throw new IllegalArgumentException("McpToolServer completion reference must be a prompt name or URI template");
            }
            Require.notNull(completer, "McpToolServer completion completer");
            completions.put(reference, completer);
            return this;
        }

        /**
         * Declares the JSON schema of a tool's structured content ({@code outputSchema}); the tool
         * replies with structured content through {@link McpServerCall#reply}.
         *
         * @param tool the tool's name
         * @param schema a JSON schema of an object
         * @return this builder
         */
        public Builder outputSchema(String tool, String schema) {
            if (tool == null || tool.isBlank() || schema == null || !schema.strip().startsWith("{")) {
                throw new IllegalArgumentException("McpToolServer outputSchema needs a tool name and a JSON schema object, was "
                        + tool + ": " + schema);
            }
            outputSchemas.put(tool, schema);
            return this;
        }

        /**
         * The server, ready to start with {@link McpToolServer#startHttp(int)},
         * {@link McpToolServer#startStdio()} or {@link McpToolServer#serveStdio()}.
         *
         * @return the server
         */
        public McpToolServer build() {
            return new McpToolServer(this);
        }

        private <T> Builder once(Map<String, T> offered, String key, T value, String what) {
            if (offered.putIfAbsent(key, value) != null) {
                throw new IllegalArgumentException("McpToolServer offers " + what + " already");
            }
            return this;
        }
    }
}
