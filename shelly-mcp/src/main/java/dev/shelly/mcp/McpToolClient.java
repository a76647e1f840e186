package dev.shelly.mcp;

import dev.shelly.chats.internal.Redaction;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import dev.shelly.tools.ToolOutput;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
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
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};
    private static final Duration MARGIN = Duration.ofSeconds(5);
    /** How long a call still waits for its answer once the server's end is reported. */
    private static final Duration ANSWER_AFTER_EXIT = Duration.ofMillis(250);

    private final McpEndpoint endpoint;
    private final String label;
    private final String prefix;
    private final Duration connectTimeout;
    private final Duration callTimeout;
    private final Supplier<Map<String, Object>> requestMeta;
    private final JsonMapper json = WireJson.mapper();
    private final McpJsonMapper mcpJson = new JacksonMcpJsonMapper(json);
    private final ToolBox toolBox = new ToolBox();
    /** What ended the session; for a subprocess, the transport's own report, so no relay can lag behind it. */
    private final CompletableFuture<String> ended;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong listings = new AtomicLong();
    private final ReentrantLock listingLock = new ReentrantLock();
    private long appliedListing;
    private final ProcessTransport process;
    private final TrackingTransport transport;
    private final McpAsyncClient client;
    private volatile McpSchema.InitializeResult initialized;
    /** The resource and prompt tools, made once after the handshake. */
    private volatile List<Tool> contextTools = List.of();
    private final boolean resourceTools;
    private final boolean promptTools;
    private final ClientRequests requests;
    /** The contexts of the tool calls in flight, oldest first: an elicitation names the latest as its caller. */
    private final java.util.concurrent.ConcurrentLinkedDeque<ToolContext> callers = new java.util.concurrent.ConcurrentLinkedDeque<>();
    /** OAuth for an HTTP server, or null. */
    private final OAuthFlow oauthFlow;
    private final Consumer<McpProgress> progress;
    private final AtomicLong progressTokens = new AtomicLong();
    /** The tool of each call in flight that asked for progress, by progress token. */
    private final Map<String, InFlight> progressTools = new java.util.concurrent.ConcurrentHashMap<>();

    /** A call that asked for progress: its tool and its caller. */
    private record InFlight(String tool, ToolContext caller) {}

    private McpToolClient(Builder b) {
        this.endpoint = b.endpoint;
        this.resourceTools = b.resourceTools;
        this.promptTools = b.promptTools;
        this.label = b.name != null ? b.name : defaultName(b.endpoint);
        this.prefix = b.toolNamePrefix;
        this.connectTimeout = b.connectTimeout;
        this.callTimeout = b.callTimeout;
        this.requestMeta = b.requestMeta;
        if (endpoint instanceof McpEndpoint.Stdio stdio) {
            oauthFlow = null;
            process = new ProcessTransport(stdio, mcpJson, label, b.shutdownGrace, b.stderrListener);
            ended = process.ended();
            transport = new TrackingTransport(process);
        } else {
            process = null;
            ended = new CompletableFuture<>();
            oauthFlow = b.oauth == null ? null : new OAuthFlow(b.oauth, label, ((McpEndpoint.Http) endpoint).url());
            transport = new TrackingTransport(httpTransport((McpEndpoint.Http) endpoint));
        }
        Duration requestTimeout = (callTimeout.compareTo(connectTimeout) > 0 ? callTimeout : connectTimeout).plus(MARGIN);
        this.progress = b.progress;
        this.requests = new ClientRequests(label);
        McpSchema.ClientCapabilities.Builder capabilities = McpSchema.ClientCapabilities.builder();
        McpClient.AsyncSpec spec = McpClient.async(transport);
        if (b.elicitation != null) {
            capabilities.elicitation();
            spec.elicitation(request -> requests.elicit(b.elicitation, request, callers.peekLast()));
        }
        if (b.sampling != null) {
            capabilities.sampling();
            spec.sampling(request -> requests.sample(b.sampling, request));
        }
        if (!b.roots.isEmpty()) {
            capabilities.roots(false);
            spec.roots(b.roots.stream().map(root -> new McpSchema.Root(root.toString(), rootName(root))).toList());
        }
        if (b.progress != null) {
            spec.progressConsumer(note -> Mono.fromRunnable(() -> progress(note)));
        }
        client = spec
                .clientInfo(new McpSchema.Implementation(b.clientName, b.clientVersion))
                .capabilities(capabilities.build())
                .requestTimeout(requestTimeout)
                .initializationTimeout(connectTimeout.plus(MARGIN))
                .toolsChangeConsumer(tools -> Mono.fromRunnable(() -> apply(tools, listings.incrementAndGet())))
                .loggingConsumer(note -> Mono.fromRunnable(() -> log.debug("MCP server '{}' logs [{}] {}: {}", label,
                        note.level(), note.logger(), note.data())))
                .build();
    }

    private McpClientTransport httpTransport(McpEndpoint.Http http) {
        URI url = http.url();
        String base = url.getScheme() + "://" + url.getRawAuthority();
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        if (url.getRawQuery() != null) {
            path += "?" + url.getRawQuery();
        }
        Map<String, String> headers = http.headers();
        return HttpClientStreamableHttpTransport.builder(base)
                .endpoint(path)
                .jsonMapper(mcpJson)
                .connectTimeout(connectTimeout)
                .authorizationErrorHandler((request, response, context) -> oauthFlow == null ? Mono.just(false)
                        : Mono.fromCallable(() -> oauthFlow.recover(response.statusCode(),
                                response.headers().allValues("WWW-Authenticate")))
                                .subscribeOn(Schedulers.boundedElastic())
                                .onErrorResume(e -> {
                                    log.warn("MCP server '{}': authorizing again failed: {}", label, scrub(rootMessage(e)));
                                    return Mono.just(false);
                                }))
                .httpRequestCustomizer((request, method, uri, body, context) -> {
                    headers.forEach(request::header);
                    if (oauthFlow != null) {
                        oauthFlow.header().ifPresent(value -> request.setHeader("Authorization", value));
                    }
                })
                .build();
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
        if (oauthFlow != null) {
            try {
                oauthFlow.authorize();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new McpException("connecting to MCP server '" + label + "' was interrupted while authorizing");
            }
        }
        McpSchema.InitializeResult result = await(client.initialize().toFuture(), connectTimeout,
                "complete the initialize handshake");
        initialized = result;
        contextTools();
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
        McpSchema.InitializeResult result = initialized;
        long listing = listings.incrementAndGet();
        if (result == null || result.capabilities() == null || result.capabilities().tools() == null) {
            apply(List.of(), listing);
            return;
        }
        McpSchema.ListToolsResult tools = await(client.listTools().toFuture(), connectTimeout, "list its tools");
        apply(tools.tools() == null ? List.of() : tools.tools(), listing);
    }

    /** Makes the resource and prompt tools the builder asked for, once the server's capabilities are known. */
    private void contextTools() {
        McpSchema.ServerCapabilities capabilities = initialized.capabilities();
        List<Tool> tools = new ArrayList<>();
        if (resourceTools && capabilities != null && capabilities.resources() != null) {
            tools.addAll(ServerContextTools.resources(this, prefix));
        }
        if (promptTools && capabilities != null && capabilities.prompts() != null) {
            List<McpPrompt> prompts = listPrompts();
            if (!prompts.isEmpty()) {
                tools.add(ServerContextTools.prompts(this, prefix, prompts));
            }
        }
        contextTools = List.copyOf(tools);
    }

    /**
     * The resources and resource templates the server offers, as links (a template's URI has
     * {@code {variables}}).
     *
     * @return the resources, empty when the server offers none
     * @throws McpException when the server does not answer within the call timeout
     */
    public List<McpBlock.Link> listResources() {
        if (initialized.capabilities() == null || initialized.capabilities().resources() == null) {
            return List.of();
        }
        List<McpBlock.Link> links = new ArrayList<>();
        McpSchema.ListResourcesResult listed = await(client.listResources().toFuture(), callTimeout, "list its resources");
        for (McpSchema.Resource r : listed.resources() == null ? List.<McpSchema.Resource>of() : listed.resources()) {
            links.add(new McpBlock.Link(r.uri(), r.name(), r.description(), r.mimeType()));
        }
        McpSchema.ListResourceTemplatesResult templates = await(client.listResourceTemplates().toFuture(), callTimeout,
                "list its resource templates");
        for (McpSchema.ResourceTemplate t : templates.resourceTemplates() == null
                ? List.<McpSchema.ResourceTemplate>of() : templates.resourceTemplates()) {
            links.add(new McpBlock.Link(t.uriTemplate(), t.name(), t.description(), t.mimeType()));
        }
        return links;
    }

    /**
     * Reads a resource of the server, e.g. to attach it to an agent's context.
     *
     * @param uri the resource's URI
     * @return its contents
     * @throws McpException when the server refuses or does not answer within the call timeout
     */
    public List<McpResourceContents> readResource(String uri) {
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException("McpToolClient.readResource uri must not be null or blank");
        }
        McpSchema.ReadResourceResult read = await(client.readResource(new McpSchema.ReadResourceRequest(uri)).toFuture(),
                callTimeout, "read resource " + uri);
        List<McpResourceContents> contents = new ArrayList<>();
        for (McpSchema.ResourceContents c : read.contents() == null ? List.<McpSchema.ResourceContents>of() : read.contents()) {
            if (c instanceof McpSchema.TextResourceContents t) {
                contents.add(McpResourceContents.text(t.uri() == null ? uri : t.uri(), t.mimeType(), t.text() == null ? "" : t.text()));
            } else if (c instanceof McpSchema.BlobResourceContents b) {
                contents.add(McpResourceContents.blob(b.uri() == null ? uri : b.uri(), b.mimeType(), b.blob() == null ? "" : b.blob()));
            }
        }
        return contents;
    }

    /**
     * The prompts the server offers; each renders through the server ({@code prompts/get}).
     *
     * @return the prompts, empty when the server offers none
     * @throws McpException when the server does not answer within the call timeout
     */
    public List<McpPrompt> listPrompts() {
        if (initialized.capabilities() == null || initialized.capabilities().prompts() == null) {
            return List.of();
        }
        McpSchema.ListPromptsResult listed = await(client.listPrompts().toFuture(), callTimeout, "list its prompts");
        List<McpPrompt> prompts = new ArrayList<>();
        for (McpSchema.Prompt p : listed.prompts() == null ? List.<McpSchema.Prompt>of() : listed.prompts()) {
            List<McpPrompt.Argument> arguments = new ArrayList<>();
            for (McpSchema.PromptArgument a : p.arguments() == null ? List.<McpSchema.PromptArgument>of() : p.arguments()) {
                arguments.add(new McpPrompt.Argument(a.name(), a.description(), Boolean.TRUE.equals(a.required())));
            }
            prompts.add(new McpPrompt(p.name(), p.title(), p.description(), arguments, given -> prompt(p.name(), given)));
        }
        return prompts;
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
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("McpToolClient.prompt name must not be null or blank");
        }
        if (arguments == null) {
            throw new IllegalArgumentException("McpToolClient.prompt arguments must not be null");
        }
        McpSchema.GetPromptResult got = await(client.getPrompt(new McpSchema.GetPromptRequest(name, new LinkedHashMap<>(arguments)))
                .toFuture(), callTimeout, "give prompt '" + name + "'");
        List<McpPrompt.Message> messages = new ArrayList<>();
        for (McpSchema.PromptMessage m : got.messages() == null ? List.<McpSchema.PromptMessage>of() : got.messages()) {
            messages.add(new McpPrompt.Message(m.role() == McpSchema.Role.ASSISTANT, ClientRequests.block(m.content())));
        }
        return messages;
    }



    /** Applies a listing unless a newer one was applied already. */
    private void apply(List<McpSchema.Tool> mcpTools, long listing) {
        listingLock.lock();
        try {
            if (listing < appliedListing || closed.get()) {
                return;
            }
            appliedListing = listing;
            Map<String, McpSchema.Tool> byName = new LinkedHashMap<>();
            for (McpSchema.Tool tool : mcpTools) {
                byName.putIfAbsent(tool.name(), tool);
            }
            Map<String, String> names = ToolNames.map(prefix, new ArrayList<>(byName.keySet()));
            List<Tool> tools = new ArrayList<>();
            for (Map.Entry<String, String> name : names.entrySet()) {
                tools.add(toTool(name.getKey(), byName.get(name.getValue())));
            }
            for (Tool extra : contextTools) {
                if (names.containsKey(extra.name())) {
                    log.warn("MCP server '{}' has a tool '{}' of its own; the client's tool of that name is left out", label,
                            extra.name());
                } else {
                    tools.add(extra);
                }
            }
            if (names.size() < byName.size()) {
                log.warn("MCP server '{}': {} tool name(s) could not be mapped to a valid, unique tool name and are left out",
                        label, byName.size() - names.size());
            }
            toolBox.replaceAll(tools);
            log.debug("MCP server '{}' has {} tools: {}", label, tools.size(), names.keySet());
        } finally {
            listingLock.unlock();
        }
    }

    private Tool toTool(String name, McpSchema.Tool tool) {
        String description = tool.description() != null ? tool.description() : tool.title() != null ? tool.title() : "";
        Map<String, Object> schema = tool.inputSchema() == null ? Map.of("type", "object") : tool.inputSchema();
        String mcpName = tool.name();
        return Tool.of(name, description, json.writeValueAsString(schema), (input, ctx) -> {
            callers.addLast(ctx);
            try {
                return call(name, mcpName, input, ctx);
            } finally {
                callers.removeLastOccurrence(ctx);
            }
        });
    }

    private ToolOutput call(String name, String mcpName, JsonNode input, ToolContext caller) throws InterruptedException {
        if (ended.isDone()) {
            return ToolOutput.error("MCP server '" + label + "' " + ended.join() + ", so tool '" + name + "' cannot run" + stderr());
        }
        Map<String, Object> arguments = json.convertValue(input, MAP);
        AtomicReference<Object> requestId = new AtomicReference<>();
        String progressToken = progress == null ? null : label + "/" + name + "/" + progressTokens.incrementAndGet();
        if (progressToken != null) {
            progressTools.put(progressToken, new InFlight(name, caller));
        }
        CompletableFuture<McpSchema.CallToolResult> answer = client.callTool(new McpSchema.CallToolRequest(mcpName, arguments,
                        meta(name, progressToken)))
                .contextWrite(TrackingTransport.context(requestId)).toFuture();
        if (progressToken != null) {
            answer.whenComplete((r, e) -> progressTools.remove(progressToken));
        }
        try {
            CompletableFuture.anyOf(answer, ended).get(TimeUnit.NANOSECONDS.convert(callTimeout), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            answer.cancel(true);
            cancelOnServer(requestId.get(), name, "the client stopped waiting for tool '" + mcpName + "' after "
                    + describe(callTimeout));
            return ToolOutput.error("MCP server '" + label + "' did not answer tool '" + name + "' within "
                    + describe(callTimeout) + "; the call was abandoned");
        } catch (InterruptedException e) {
            answer.cancel(true);
            cancelOnServer(requestId.get(), name, "the caller of tool '" + mcpName + "' was interrupted");
            throw e;
        } catch (ExecutionException e) {
            log.trace("call of {} on {} failed: {}", mcpName, label, scrub(String.valueOf(e.getCause())));
        }
        if (!answer.isDone() && ended.isDone() && !closed.get()) {
            // The server's last answer may still be on its way through the SDK when its exit is reported.
            try {
                answer.get(TimeUnit.NANOSECONDS.convert(ANSWER_AFTER_EXIT), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException | CancellationException e) {
                log.trace("no answer of {} from {} after its end", mcpName, label);
            } catch (InterruptedException e) {
                answer.cancel(true);
                throw e;
            }
        }
        if (answer.isDone() && !answer.isCompletedExceptionally()) {
            return McpContent.toOutput(answer.join(), json);
        }
        Throwable cause = answer.isCompletedExceptionally() ? failure(answer) : null;
        McpError refusal = cause == null ? null : find(cause, McpError.class);
        if (refusal != null) {
            return ToolOutput.error("MCP server '" + label + "' refused tool '" + name + "': " + scrub(refusal.getMessage()));
        }
        if (cause != null && !ended.isDone()) {
            return ToolOutput.error("calling tool '" + name + "' on MCP server '" + label + "' failed: " + scrub(rootMessage(cause)));
        }
        answer.cancel(true);
        return ToolOutput.error("MCP server '" + label + "' " + ended.join() + " while running tool '" + name + "'" + stderr());
    }

    /** The {@code _meta} of one tools/call: the request metadata's entries, or null for none. */
    private Map<String, Object> meta(String name, String progressToken) {
        Map<String, Object> meta = new LinkedHashMap<>();
        if (requestMeta != null) {
            try {
                Map<String, Object> given = requestMeta.get();
                if (given != null) {
                    meta.putAll(given);
                }
            } catch (RuntimeException e) {
                log.warn("the request metadata of MCP server '{}' failed for tool '{}'; the call goes without it", label, name, e);
            }
        }
        if (progressToken != null) {
            meta.put("progressToken", progressToken);
        }
        return meta.isEmpty() ? null : meta;
    }

    private void progress(McpSchema.ProgressNotification note) {
        InFlight call = note.progressToken() == null ? null : progressTools.get(note.progressToken().toString());
        if (call == null) {
            log.debug("MCP server '{}' reports progress on no call of ours: {}", label, note.progressToken());
            return;
        }
        try {
            progress.accept(new McpProgress(label, call.tool(), note.progress() == null ? 0 : note.progress(), note.total(),
                    note.message(), call.caller()));
        } catch (RuntimeException e) {
            log.warn("the progress listener of MCP server '{}' failed", label, e);
        }
    }

    private static String rootName(URI root) {
        String path = root.getPath() == null ? "" : root.getPath().replaceAll("/+$", "");
        return path.isEmpty() ? root.toString() : path.substring(path.lastIndexOf('/') + 1);
    }

    /**
     * Tells the server to stop working on an abandoned call ({@code notifications/cancelled}),
     * without waiting for the message to be sent.
     */
    private void cancelOnServer(Object requestId, String name, String reason) {
        if (requestId == null || ended.isDone()) {
            return;
        }
        transport.cancel(requestId, reason).subscribe(ignored -> { },
                e -> log.debug("telling MCP server '{}' that tool '{}' was cancelled failed: {}", label, name, scrub(e.toString())));
    }

    /** Waits for a step of connecting, or for the server's end, within the timeout. */
    private <T> T await(CompletableFuture<T> step, Duration timeout, String what) {
        try {
            CompletableFuture.anyOf(step, ended).get(TimeUnit.NANOSECONDS.convert(timeout), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            step.cancel(true);
            throw new McpException("MCP server '" + label + "' (" + endpoint + ") did not " + what + " within "
                    + describe(timeout) + stderr());
        } catch (InterruptedException e) {
            step.cancel(true);
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while waiting for MCP server '" + label + "' to " + what);
        } catch (ExecutionException e) {
            log.trace("waiting for {} failed: {}", label, scrub(String.valueOf(e.getCause())));
        }
        if (step.isDone() && !step.isCompletedExceptionally()) {
            return step.join();
        }
        if (ended.isDone()) {
            step.cancel(true);
            boolean neverStarted = process != null && process.process() == null;
            throw new McpException("MCP server '" + label + "' " + ended.join()
                    + (neverStarted ? "" : " before it could " + what + stderr()));
        }
        Throwable cause = failure(step);
        // The cause is not attached: the HTTP client's exceptions may quote the URL with its credentials.
        throw new McpException("MCP server '" + label + "' (" + endpoint + ") did not " + what + ": "
                + scrub(rootMessage(cause)) + stderr());
    }

    private String stderr() {
        return process == null || closed.get() ? "" : process.stderrSummary();
    }

    /**
     * The server's tools as Shelly tools. The toolbox belongs to this client: it is replaced
     * whenever the server's tools change, and emptied when the client closes; do not register
     * tools of your own in it.
     *
     * @return the live toolbox
     */
    public ToolBox toolBox() {
        return toolBox;
    }

    /**
     * The server's tools now.
     *
     * @return the tools
     */
    public List<Tool> tools() {
        return toolBox.tools();
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
        return !ended.isDone();
    }

    /**
     * The server's process, for a subprocess server that has started.
     *
     * @return its handle, or empty for an HTTP server
     */
    public Optional<ProcessHandle> process() {
        Process p = process == null ? null : process.process();
        return p == null ? Optional.empty() : Optional.of(p.toHandle());
    }

    /**
     * Ends the session: calls in flight return an error result, the toolbox is emptied, and a
     * subprocess server is stopped (stdin closed, then SIGTERM, then SIGKILL, each after the
     * shutdown grace period) and gone when this returns. An HTTP session is deleted on the server.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        ended.complete(ProcessTransport.CLOSED);
        listingLock.lock();
        try {
            toolBox.replaceAll(List.of());
        } finally {
            listingLock.unlock();
        }
        if (process != null) {
            process.terminate();
        }
        try {
            client.closeGracefully().block(Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            log.debug("closing the MCP session with '{}': {}", label, scrub(e.toString()));
        }
        requests.close();
    }

    @Override
    public String toString() {
        return "McpToolClient[" + label + ", " + endpoint + "]";
    }

    private static Throwable failure(CompletableFuture<?> future) {
        try {
            future.join();
            return new IllegalStateException("no failure");
        } catch (CompletionException | CancellationException e) {
            return e.getCause() == null ? e : e.getCause();
        }
    }

    private static <T extends Throwable> T find(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        return null;
    }

    /** The innermost message of a failure, without the wrappers Reactor and the SDK add. */
    private static String rootMessage(Throwable t) {
        McpError error = find(t, McpError.class);
        if (error != null) {
            return error.getMessage();
        }
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return message == null || message.isBlank() ? root.getClass().getSimpleName() : message;
    }

    /** Removes the credentials of an HTTP endpoint's URL from text a library produced. */
    private String scrub(String text) {
        return endpoint instanceof McpEndpoint.Http http ? Redaction.scrub(text, http.url()) : text;
    }

    private static String describe(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    private static String defaultName(McpEndpoint endpoint) {
        String text = switch (endpoint) {
            case McpEndpoint.Stdio s -> String.join(" ", s.commandLine());
            case McpEndpoint.Http h -> Redaction.maskUrl(h.url());
        };
        return text.length() <= 80 ? text : text.substring(0, 77) + "...";
    }

    /** Settings of a client; {@link #connect()} makes it. */
    public static final class Builder {
        private final McpEndpoint endpoint;
        private String name;
        private String toolNamePrefix = "";
        private Duration connectTimeout = Duration.ofSeconds(30);
        private Duration callTimeout = Duration.ofSeconds(60);
        private Duration shutdownGrace = Duration.ofSeconds(2);
        private String clientName = "shelly";
        private String clientVersion = defaultVersion();
        private Consumer<String> stderrListener;
        private Supplier<Map<String, Object>> requestMeta;
        private McpElicitation.Handler elicitation;
        private McpSampling.Handler sampling;
        private final List<URI> roots = new ArrayList<>();
        private Consumer<McpProgress> progress;
        private McpOAuth oauth;
        private boolean resourceTools;
        private boolean promptTools;

        private Builder(McpEndpoint endpoint) {
            if (endpoint == null) {
                throw new IllegalArgumentException("McpToolClient.builder endpoint must not be null");
            }
            this.endpoint = endpoint;
        }

        /**
         * The name to call the server by in messages and logs, e.g. {@code "filesystem"}.
         *
         * @param name the name
         * @return this builder
         */
        public Builder name(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("McpToolClient name must not be null or blank");
            }
            this.name = name;
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
            this.connectTimeout = positive(timeout, "connectTimeout");
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
            this.callTimeout = positive(timeout, "callTimeout");
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
            if (meta == null) {
                throw new IllegalArgumentException("McpToolClient requestMeta must not be null");
            }
            this.requestMeta = meta;
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
            this.shutdownGrace = positive(grace, "shutdownGrace");
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
            if (handler == null) {
                throw new IllegalArgumentException("McpToolClient elicitation handler must not be null");
            }
            this.elicitation = handler;
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
        public Builder sampling(McpSampling.Handler handler) {
            if (handler == null) {
                throw new IllegalArgumentException("McpToolClient sampling handler must not be null");
            }
            this.sampling = handler;
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
        public Builder onProgress(Consumer<McpProgress> listener) {
            if (listener == null) {
                throw new IllegalArgumentException("McpToolClient onProgress listener must not be null");
            }
            this.progress = listener;
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
            if (oauth == null) {
                throw new IllegalArgumentException("McpToolClient oauth must not be null");
            }
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

        private static Duration positive(Duration d, String what) {
            if (d == null) {
                throw new IllegalArgumentException("McpToolClient " + what + " must not be null");
            }
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("McpToolClient " + what + " must be positive, was " + d);
            }
            return d;
        }

        private static String defaultVersion() {
            String version = McpToolClient.class.getPackage().getImplementationVersion();
            return version == null ? "0" : version;
        }
    }
}
