package dev.shelly.mcp;

import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * A connection to one MCP server whose tools an agent can call.
 *
 * <pre>{@code
 * try (McpToolClient everything = McpToolClient.builder(
 *         McpEndpoint.stdio("npx", "-y", "@modelcontextprotocol/server-everything")).name("everything").connect()) {
 *     ToolBox tools = everything.toolBox();   // follows the server's tools/list_changed
 *     ToolResult r = tools.call(new ToolCall("c1", "echo", "{\"message\":\"hi\"}"), ToolContext.of("assistant"));
 * }
 * }</pre>
 *
 * <p>The server's tools appear as Shelly {@link Tool}s in a live {@link #toolBox()}; their
 * handlers call the server. Names MCP allows but model providers do not (dots, slashes, more than
 * 64 characters) are mapped by a fixed rule: other characters become {@code _}, and a name that
 * then collides gets a short hash of the original. An optional prefix keeps several servers'
 * tools apart.
 *
 * <p>A call never hangs an agent: when the server does not answer within the call timeout, has
 * exited (its last stderr lines are quoted) or the client was closed, the call returns an error
 * result at once. A call that times out, or whose thread is interrupted, is also cancelled on the
 * server: the client sends {@code notifications/cancelled} with the request's id and a reason, so
 * the server can stop working on it. {@link #close()} ends the session and, for a subprocess,
 * stops it and waits until it is gone. Thread-safe.
 */
public final class McpToolClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(McpToolClient.class);

    private final McpEndpoint endpoint;
    private final String label;
    private final Duration connectTimeout;
    private final ServerTools tools;
    private final ClientSession session;
    private final ServerContext context;
    private volatile McpSchema.InitializeResult initialized;

    /**
     * Progress a server reported on a tool call ({@code notifications/progress}).
     *
     * @param server the server's name
     * @param tool the tool's name, as the client's toolbox calls it
     * @param progress how far, increasing
     * @param total the total, or null when unknown
     * @param message what is being done, or null
     * @param caller the context of the tool call (its agent and run), or null when unknown
     */
    public record Progress(String server, String tool, double progress, Double total, String message, ToolContext caller) {}

    /**
     * A server's request for a model's message ({@code sampling/createMessage}).
     *
     * @param server the name of the server that asks
     * @param systemPrompt the system prompt it wants, or null
     * @param messages the conversation, text and images
     * @param maxTokens the most tokens to sample
     * @param caller the context of the tool call the server was serving when it asked (the latest
     *     one in flight: its agent and run, whose links and budget a handler may make the model
     *     call under), or null when no call was in flight
     */
    public record Sampling(String server, String systemPrompt, List<McpPrompt.Message> messages, int maxTokens,
            ToolContext caller) {

        /** Checks the fields and copies the messages. */
        public Sampling {
            if (server == null) {
                throw new IllegalArgumentException("McpToolClient.Sampling.server must not be null");
            }
            if (messages == null) {
                throw new IllegalArgumentException("McpToolClient.Sampling.messages must not be null");
            }
            messages = List.copyOf(messages);
        }

        /**
         * A message the model gave.
         *
         * @param text its text (empty when it gave none)
         * @param model the model's name, or null
         * @param stopReason why it stopped ({@code endTurn}, {@code maxTokens}, ...), or null
         */
        public record Reply(String text, String model, String stopReason) {
            /** Checks the text. */
            public Reply {
                if (text == null) {
                    throw new IllegalArgumentException("McpToolClient.Sampling.Reply.text must not be null");
                }
            }
        }

        /** Answers sampling requests; the client calls it on a thread of its own, which it may block. */
        @FunctionalInterface
        public interface Handler {
            /**
             * Samples a message.
             *
             * @param request what the server asks for
             * @return the model's message
             * @throws Exception a refusal or failure, which the server gets as an error with its message
             */
            Reply sample(Sampling request) throws Exception;
        }
    }

    private McpToolClient(Builder b) {
        this.endpoint = b.endpoint;
        this.label = b.name != null ? b.name : ClientSession.defaultName(b.endpoint);
        this.connectTimeout = b.connectTimeout;
        JsonMapper json = WireJson.mapper();
        this.tools = new ServerTools(b, label, json);
        this.session = new ClientSession(b, label, new JacksonMcpJsonMapper(json), tools);
        tools.attach(session);
        this.context = new ServerContext(session, b);
    }

    /**
     * Starts configuring a client.
     *
     * @param endpoint where the server is
     * @return the builder
     */
    public static Builder builder(McpEndpoint endpoint) {
        return new Builder(endpoint);
    }

    /**
     * Connects with the default settings.
     *
     * @param endpoint where the server is
     * @return the connected client
     * @throws McpException when the server cannot be started or reached, or does not finish the
     *     handshake in time
     */
    public static McpToolClient connect(McpEndpoint endpoint) {
        return builder(endpoint).connect();
    }

    private void start() {
        session.authorize();
        McpSchema.InitializeResult result = session.await(session.client.initialize().toFuture(), connectTimeout,
                "complete the initialize handshake");
        initialized = result;
        tools.contextTools(context.tools(result.capabilities()));
        log.debug("MCP server '{}' is {} {} (protocol {})", label, result.serverInfo().name(), result.serverInfo().version(),
                result.protocolVersion());
        refreshTools();
    }

    /**
     * Lists the server's tools again now and updates {@link #toolBox()}. The client already does
     * this by itself whenever the server sends {@code tools/list_changed}.
     *
     * @throws McpException when the server does not answer in the connect timeout
     */
    public void refreshTools() {
        tools.refresh(initialized, connectTimeout);
    }

    /**
     * The resources and resource templates the server offers, as links (a template's URI has
     * {@code {variables}}).
     *
     * @return the resources, empty when the server offers none
     * @throws McpException when the server does not answer within the call timeout
     */
    public List<McpBlock.Link> listResources() {
        return context.listResources(initialized.capabilities());
    }

    /**
     * Reads a resource of the server, e.g. to attach it to an agent's context.
     *
     * @param uri the resource's URI
     * @return its contents
     * @throws McpException when the server refuses or does not answer within the call timeout
     */
    public List<McpResource.Contents> readResource(String uri) {
        return context.readResource(uri);
    }

    /**
     * The prompts the server offers; each renders through the server ({@code prompts/get}).
     *
     * @return the prompts, empty when the server offers none
     * @throws McpException when the server does not answer within the call timeout
     */
    public List<McpPrompt> listPrompts() {
        return context.listPrompts(initialized.capabilities());
    }

    /**
     * Gets a prompt of the server with its arguments ({@code prompts/get}).
     *
     * @param name the prompt's name
     * @param arguments its arguments
     * @return its messages
     * @throws McpException when the server refuses or does not answer within the call timeout
     */
    public List<McpPrompt.Message> prompt(String name, Map<String, String> arguments) {
        return context.prompt(name, arguments);
    }

    /**
     * The server's tools as Shelly tools. The toolbox belongs to this client: it is replaced
     * whenever the server's tools change, and emptied when the client closes; do not register
     * tools of your own in it.
     *
     * @return the live toolbox
     */
    public ToolBox toolBox() {
        return tools.toolBox();
    }

    /**
     * The server's tools now.
     *
     * @return the tools
     */
    public List<Tool> tools() {
        return tools.toolBox().tools();
    }

    /**
     * The name this client gives the server in messages and logs.
     *
     * @return the builder's name, or one made from the endpoint
     */
    public String name() {
        return label;
    }

    /**
     * Where the server is.
     *
     * @return the endpoint
     */
    public McpEndpoint endpoint() {
        return endpoint;
    }

    /**
     * The server's own name, from the handshake.
     *
     * @return the name
     */
    public String serverName() {
        return initialized.serverInfo().name();
    }

    /**
     * The server's version, from the handshake.
     *
     * @return the version
     */
    public String serverVersion() {
        return initialized.serverInfo().version();
    }

    /**
     * The server's instructions for using it, from the handshake.
     *
     * @return the instructions, or empty text
     */
    public String instructions() {
        String text = initialized.instructions();
        return text == null ? "" : text;
    }

    /**
     * Whether the server can still answer: not closed and, for a subprocess, not exited.
     *
     * @return true while usable
     */
    public boolean isOpen() {
        return !session.ended.isDone();
    }

    /**
     * The server's process, for a subprocess server that has started.
     *
     * @return its handle, or empty for an HTTP server
     */
    public Optional<ProcessHandle> process() {
        Process p = session.process();
        return p == null ? Optional.empty() : Optional.of(p.toHandle());
    }

    /**
     * Ends the session: calls in flight return an error result, the toolbox is emptied, and a
     * subprocess server is stopped (stdin closed, then SIGTERM, then SIGKILL, each after the
     * shutdown grace period) and gone when this returns. An HTTP session is deleted on the server.
     */
    @Override
    public void close() {
        if (!session.closed.compareAndSet(false, true)) {
            return;
        }
        session.ended.complete(ProcessTransport.CLOSED);
        tools.empty();
        session.close();
    }

    @Override
    public String toString() {
        return "McpToolClient[" + label + ", " + endpoint + "]";
    }

    /** Settings of a client; {@link #connect()} makes it. */
    public static final class Builder {
        final McpEndpoint endpoint;
        String name;
        String toolNamePrefix = "";
        Duration connectTimeout = Duration.ofSeconds(30);
        Duration callTimeout = Duration.ofSeconds(60);
        Duration shutdownGrace = Duration.ofSeconds(2);
        String clientName = "shelly";
        String clientVersion = defaultVersion();
        Consumer<String> stderrListener;
        Supplier<Map<String, Object>> requestMeta;
        McpElicitation.Handler elicitation;
        Sampling.Handler sampling;
        final List<URI> roots = new ArrayList<>();
        Consumer<Progress> progress;
        McpOAuth oauth;
        boolean resourceTools;
        boolean promptTools;

        private Builder(McpEndpoint endpoint) {
            this.endpoint = Require.notNull(endpoint, "McpToolClient.builder endpoint");
        }

        /**
         * The name to call the server by in messages and logs, e.g. {@code "filesystem"}.
         *
         * @param name the name
         * @return this builder
         */
        public Builder name(String name) {
            this.name = Require.notBlank(name, "McpToolClient name");
            return this;
        }

        /**
         * Text put before every tool name, e.g. {@code "fs_"}, to keep several servers' tools apart.
         *
         * @param prefix letters, digits, {@code _} or {@code -}; at most 32
         * @return this builder
         */
        public Builder toolNamePrefix(String prefix) {
            if (prefix == null || !ToolNames.isValidPrefix(prefix)) {
                throw new IllegalArgumentException("McpToolClient toolNamePrefix '" + prefix
                        + "' is invalid: use at most 32 letters, digits, '_' or '-'");
            }
            this.toolNamePrefix = prefix;
            return this;
        }

        /**
         * How long starting the server, the handshake and each listing of its tools may take;
         * 30 s by default.
         *
         * @param timeout the limit
         * @return this builder
         */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = Require.positive(timeout, "McpToolClient connectTimeout");
            return this;
        }

        /**
         * How long one tool call may take before its result says the server did not answer;
         * 60 s by default.
         *
         * @param timeout the limit
         * @return this builder
         */
        public Builder callTimeout(Duration timeout) {
            this.callTimeout = Require.positive(timeout, "McpToolClient callTimeout");
            return this;
        }

        /**
         * Entries for the {@code _meta} of every {@code tools/call} request, asked for on the
         * thread that calls the tool, just before the request is sent: how a trace continues on
         * the server ({@code ShellyTelemetry::mcpMeta} gives the W3C {@code traceparent},
         * {@code tracestate} and {@code baggage} of the calling thread). An empty map adds nothing.
         *
         * @param meta the entries of one request
         * @return this builder
         */
        public Builder requestMeta(Supplier<Map<String, Object>> meta) {
            this.requestMeta = Require.notNull(meta, "McpToolClient requestMeta");
            return this;
        }

        /**
         * How long a subprocess server gets at each step of stopping (after its stdin closes,
         * then after SIGTERM) before the next; 2 s by default.
         *
         * @param grace the period
         * @return this builder
         */
        public Builder shutdownGrace(Duration grace) {
            this.shutdownGrace = Require.positive(grace, "McpToolClient shutdownGrace");
            return this;
        }

        /**
         * How this client introduces itself to the server; {@code shelly} by default.
         *
         * @param name the client's name
         * @param version its version
         * @return this builder
         */
        public Builder clientInfo(String name, String version) {
            if (name == null || name.isBlank() || version == null || version.isBlank()) {
                throw new IllegalArgumentException("McpToolClient clientInfo needs a name and a version");
            }
            this.clientName = name;
            this.clientVersion = version;
            return this;
        }

        /**
         * Receives each line a subprocess server writes to stderr (they are also logged at DEBUG,
         * and the last ones are quoted when the server fails).
         *
         * @param listener called on a reader thread; must not block
         * @return this builder
         */
        public Builder onStderr(Consumer<String> listener) {
            this.stderrListener = listener;
            return this;
        }

        /**
         * Lets the server ask the user for input ({@code elicitation/create}); without a handler
         * the client does not offer elicitation. Accepted answers get the schema's defaults for
         * what the user left out and are checked against the schema before they are sent; one
         * that does not fit is refused with an error naming what is wrong.
         *
         * @param handler asks the user, e.g. as a question through an agent's approvals
         * @return this builder
         */
        public Builder elicitation(McpElicitation.Handler handler) {
            this.elicitation = Require.notNull(handler, "McpToolClient elicitation handler");
            return this;
        }

        /**
         * Lets the server ask for a model's message ({@code sampling/createMessage}); without a
         * handler the client does not offer sampling, and servers cannot spend the application's
         * model budget.
         *
         * @param handler samples, e.g. with an agent's completer under its budgets
         * @return this builder
         */
        public Builder sampling(Sampling.Handler handler) {
            this.sampling = Require.notNull(handler, "McpToolClient sampling handler");
            return this;
        }

        /**
         * The roots the server may work in ({@code roots/list}), e.g. the coding workspace.
         *
         * @param roots {@code file:} URIs
         * @return this builder
         */
        public Builder roots(List<URI> roots) {
            if (roots == null || roots.contains(null)) {
                throw new IllegalArgumentException("McpToolClient roots must not be null or hold null");
            }
            this.roots.clear();
            this.roots.addAll(roots);
            return this;
        }

        /**
         * Asks the server for progress on every tool call and passes what it reports on.
         *
         * @param listener called on a thread of the client's; must not block
         * @return this builder
         */
        public Builder onProgress(Consumer<Progress> listener) {
            this.progress = Require.notNull(listener, "McpToolClient onProgress listener");
            return this;
        }

        /**
         * Adds {@code list_resources} and {@code read_resource} (after the tool name prefix) to
         * the toolbox when the server offers resources, so an agent can read them.
         *
         * @return this builder
         */
        public Builder resourceTools() {
            this.resourceTools = true;
            return this;
        }

        /**
         * Adds {@code get_prompt} (after the tool name prefix) to the toolbox when the server
         * offers prompts; its description names them, so a model can take one as instructions.
         *
         * @return this builder
         */
        public Builder promptTools() {
            this.promptTools = true;
            return this;
        }

        /**
         * Authorizes with OAuth when the HTTP server asks for it (answers 401): before the
         * handshake the client asks the server, discovers its authorization server, gets a token
         * (with the user's consent, or client credentials) and sends it with every request,
         * refreshing it when it expires.
         *
         * @param oauth the OAuth settings
         * @return this builder
         * @throws IllegalArgumentException for a stdio server, which is not authorized this way
         */
        public Builder oauth(McpOAuth oauth) {
            Require.notNull(oauth, "McpToolClient oauth");
            if (!(endpoint instanceof McpEndpoint.Http)) {
                throw new IllegalArgumentException("McpToolClient oauth is for HTTP servers; " + endpoint + " is not one");
            }
            this.oauth = oauth;
            return this;
        }

        /**
         * Starts the server (for stdio), performs the handshake and lists the tools.
         *
         * @return the connected client
         * @throws McpException when the server cannot be started or reached, or does not finish
         *     the handshake or the listing within the connect timeout; a started subprocess is
         *     stopped again
         */
        public McpToolClient connect() {
            McpToolClient client = new McpToolClient(this);
            try {
                client.start();
                return client;
            } catch (RuntimeException e) {
                client.close();
                throw e;
            }
        }

        private static String defaultVersion() {
            String version = McpToolClient.class.getPackage().getImplementationVersion();
            return version == null ? "0" : version;
        }
    }
}
