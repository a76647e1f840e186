package dev.shelly.mcp;

import dev.shelly.chats.internal.Redaction;
import dev.shelly.tools.ToolContext;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * One session of an {@link McpToolClient} with its server: the transport (a subprocess, or
 * streamable HTTP with OAuth), the MCP SDK's client on it, and what ended the session. It waits for
 * the server within a timeout or until the session ends, and tells failures with the server's
 * last stderr lines and without the credentials of an HTTP endpoint's URL.
 */
final class ClientSession {
    private static final Logger log = LoggerFactory.getLogger(McpToolClient.class);
    private static final Duration MARGIN = Duration.ofSeconds(5);

    /** What the session passes on to the client it serves. */
    interface Events {
        /** The server's tools changed ({@code tools/list_changed}); here they are. */
        void toolsChanged(List<McpSchema.Tool> tools);

        /** The server reported progress on a call. */
        void progress(McpSchema.ProgressNotification note);

        /** The context of the latest tool call in flight, or null: the caller of an elicitation or a sampling request. */
        ToolContext caller();
    }

    final String label;
    private final McpEndpoint endpoint;
    /** What ended the session; for a subprocess, the transport's own report, so no relay can lag behind it. */
    final CompletableFuture<String> ended;
    final AtomicBoolean closed = new AtomicBoolean();
    private final ProcessTransport process;
    private final TrackingTransport transport;
    private final OAuthFlow oauthFlow;
    private final ClientRequests requests;
    final McpAsyncClient client;

    ClientSession(McpToolClient.Builder b, String label, McpJsonMapper mcpJson, Events events) {
        this.label = label;
        this.endpoint = b.endpoint;
        if (endpoint instanceof McpEndpoint.Stdio stdio) {
            oauthFlow = null;
            process = new ProcessTransport(stdio, mcpJson, label, b.shutdownGrace, b.stderrListener);
            ended = process.ended();
            transport = new TrackingTransport(process);
        } else {
            process = null;
            ended = new CompletableFuture<>();
            oauthFlow = b.oauth == null ? null : new OAuthFlow(b.oauth, label, ((McpEndpoint.Http) endpoint).url());
            transport = new TrackingTransport(httpTransport((McpEndpoint.Http) endpoint, mcpJson, b.connectTimeout));
        }
        Duration requestTimeout = (b.callTimeout.compareTo(b.connectTimeout) > 0 ? b.callTimeout : b.connectTimeout)
                .plus(MARGIN);
        this.requests = new ClientRequests(label);
        McpSchema.ClientCapabilities.Builder capabilities = McpSchema.ClientCapabilities.builder();
        McpClient.AsyncSpec spec = McpClient.async(transport);
        if (b.elicitation != null) {
            capabilities.elicitation();
            spec.elicitation(request -> requests.elicit(b.elicitation, request, events.caller()));
        }
        if (b.sampling != null) {
            capabilities.sampling();
            spec.sampling(request -> requests.sample(b.sampling, request, events.caller()));
        }
        if (!b.roots.isEmpty()) {
            capabilities.roots(false);
            spec.roots(b.roots.stream().map(root -> new McpSchema.Root(root.toString(), rootName(root))).toList());
        }
        if (b.progress != null) {
            spec.progressConsumer(note -> Mono.fromRunnable(() -> events.progress(note)));
        }
        client = spec
                .clientInfo(McpSchema.Implementation.builder(b.clientName, b.clientVersion).build())
                .capabilities(capabilities.build())
                .requestTimeout(requestTimeout)
                .initializationTimeout(b.connectTimeout.plus(MARGIN))
                .toolsChangeConsumer(tools -> Mono.fromRunnable(() -> events.toolsChanged(tools)))
                .loggingConsumer(note -> Mono.fromRunnable(() -> log.debug("MCP server '{}' logs [{}] {}: {}", label,
                        note.level(), note.logger(), note.data())))
                .build();
    }

    private McpClientTransport httpTransport(McpEndpoint.Http http, McpJsonMapper mcpJson, Duration connectTimeout) {
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
                .clientBuilder(ResumingHttpClient.builder(label))
                .connectTimeout(connectTimeout)
                .authorizationErrorHandler((request, response, context) -> oauthFlow == null ? Mono.just(false)
                        : Mono.fromCallable(() -> oauthFlow.recover(response.statusCode(),
                                response.headers().allValues("WWW-Authenticate")))
                                .subscribeOn(Schedulers.boundedElastic())
                                .onErrorResume(e -> {
                                    log.warn("MCP server '{}': authorizing again failed: {}", label, scrub(rootMessage(e)));
                                    return Mono.just(false);
                                }))
                .addHttpRequestCustomizer((request, method, uri, body, context) -> {
                    headers.forEach(request::header);
                    if (oauthFlow != null) {
                        oauthFlow.header().ifPresent(value -> request.setHeader("Authorization", value));
                    }
                })
                .build();
    }

    /** Gets a token first, when the server is authorized with OAuth. */
    void authorize() {
        if (oauthFlow == null) {
            return;
        }
        try {
            oauthFlow.authorize();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new McpException("connecting to MCP server '" + label + "' was interrupted while authorizing");
        }
    }

    /** Waits for a step of the session, or for the server's end, within the timeout. */
    <T> T await(CompletableFuture<T> step, Duration timeout, String what) {
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

    /**
     * Tells the server to stop working on an abandoned call ({@code notifications/cancelled}),
     * without waiting for the message to be sent.
     */
    void cancel(Object requestId, String name, String reason) {
        if (requestId == null || ended.isDone()) {
            return;
        }
        transport.cancel(requestId, reason).subscribe(ignored -> { },
                e -> log.debug("telling MCP server '{}' that tool '{}' was cancelled failed: {}", label, name, scrub(e.toString())));
    }

    /** The last lines a subprocess server wrote to stderr, to quote in a failure; empty otherwise. */
    String stderr() {
        return process == null || closed.get() ? "" : process.stderrSummary();
    }

    /** The server's process, once started; null for an HTTP server. */
    Process process() {
        return process == null ? null : process.process();
    }

    /** Removes the credentials of an HTTP endpoint's URL from text a library produced. */
    String scrub(String text) {
        return endpoint instanceof McpEndpoint.Http http ? Redaction.scrub(text, http.url()) : text;
    }

    /** Ends the session: stops a subprocess (and waits until it is gone) and closes the SDK's client. */
    void close() {
        ended.complete(ProcessTransport.CLOSED);
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

    static Throwable failure(CompletableFuture<?> future) {
        try {
            future.join();
            return new IllegalStateException("no failure");
        } catch (CompletionException | CancellationException e) {
            return e.getCause() == null ? e : e.getCause();
        }
    }

    static <T extends Throwable> T find(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        return null;
    }

    /** The innermost message of a failure, without the wrappers Reactor and the SDK add. */
    static String rootMessage(Throwable t) {
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

    static String describe(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    /** A client's name for a server it was given no name for: its command line, or its URL without credentials. */
    static String defaultName(McpEndpoint endpoint) {
        String text = switch (endpoint) {
            case McpEndpoint.Stdio s -> String.join(" ", s.commandLine());
            case McpEndpoint.Http h -> Redaction.maskUrl(h.url());
        };
        return text.length() <= 80 ? text : text.substring(0, 77) + "...";
    }

    private static String rootName(URI root) {
        String path = root.getPath() == null ? "" : root.getPath().replaceAll("/+$", "");
        return path.isEmpty() ? root.toString() : path.substring(path.lastIndexOf('/') + 1);
    }
}
