package dev.shelly.mcp;

import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import dev.shelly.tools.ToolOutput;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The tools of an {@link McpToolClient}'s server as Shelly tools in a live toolbox, and their
 * calls. Each listing is mapped to valid, unique names ({@link ToolNames}) and applied unless a
 * newer one was already, with the client's resource and prompt tools beside the server's; a call
 * waits for its answer within the call timeout or until the session ends, is cancelled on the
 * server when it is abandoned, and passes the server's progress on with its caller.
 */
final class ServerTools implements ClientSession.Events {
    private static final Logger log = LoggerFactory.getLogger(McpToolClient.class);
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};
    /** How long a call still waits for its answer once the server's end is reported. */
    private static final Duration ANSWER_AFTER_EXIT = Duration.ofMillis(250);

    private final String label;
    private final String prefix;
    private final Duration callTimeout;
    private final Supplier<Map<String, Object>> requestMeta;
    private final Consumer<McpToolClient.Progress> progress;
    private final JsonMapper json;
    private final ToolBox toolBox = new ToolBox();
    private final AtomicLong listings = new AtomicLong();
    private final ReentrantLock listingLock = new ReentrantLock();
    private long appliedListing;
    private boolean emptied;
    /** The resource and prompt tools, made once after the handshake. */
    private volatile List<Tool> contextTools = List.of();
    /** The contexts of the tool calls in flight, oldest first: an elicitation names the latest as its caller. */
    private final ConcurrentLinkedDeque<ToolContext> callers = new ConcurrentLinkedDeque<>();
    private final AtomicLong progressTokens = new AtomicLong();
    /** The tool of each call in flight that asked for progress, by progress token. */
    private final Map<String, InFlight> progressTools = new ConcurrentHashMap<>();
    private ClientSession session;

    /** A call that asked for progress: its tool and its caller. */
    private record InFlight(String tool, ToolContext caller) {}

    ServerTools(McpToolClient.Builder b, String label, JsonMapper json) {
        this.label = label;
        this.prefix = b.toolNamePrefix;
        this.callTimeout = b.callTimeout;
        this.requestMeta = b.requestMeta;
        this.progress = b.progress;
        this.json = json;
    }

    /** The session the tools call through; set once, before the handshake. */
    void attach(ClientSession s) {
        this.session = s;
    }

    ToolBox toolBox() {
        return toolBox;
    }

    /** The tools the client adds itself (resources, prompts), beside the server's. */
    void contextTools(List<Tool> tools) {
        this.contextTools = List.copyOf(tools);
    }

    /** Lists the server's tools now (when it has any) and applies the listing. */
    void refresh(McpSchema.InitializeResult initialized, Duration connectTimeout) {
        long listing = listings.incrementAndGet();
        if (initialized == null || initialized.capabilities() == null || initialized.capabilities().tools() == null) {
            apply(List.of(), listing);
            return;
        }
        McpSchema.ListToolsResult listed = session.await(session.client.listTools().toFuture(), connectTimeout,
                "list its tools");
        apply(listed.tools() == null ? List.of() : listed.tools(), listing);
    }

    @Override
    public void toolsChanged(List<McpSchema.Tool> tools) {
        apply(tools, listings.incrementAndGet());
    }

    @Override
    public ToolContext caller() {
        return callers.peekLast();
    }

    /** Applies a listing unless a newer one was applied already, or the toolbox was emptied. */
    void apply(List<McpSchema.Tool> mcpTools, long listing) {
        listingLock.lock();
        try {
            if (listing < appliedListing || emptied) {
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

    /** Empties the toolbox for good: the client is closed. */
    void empty() {
        listingLock.lock();
        try {
            emptied = true;
            toolBox.replaceAll(List.of());
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
        CompletableFuture<String> ended = session.ended;
        if (ended.isDone()) {
            return ToolOutput.error("MCP server '" + label + "' " + ended.join() + ", so tool '" + name + "' cannot run"
                    + session.stderr());
        }
        Map<String, Object> arguments = json.convertValue(input, MAP);
        AtomicReference<Object> requestId = new AtomicReference<>();
        String progressToken = progress == null ? null : label + "/" + name + "/" + progressTokens.incrementAndGet();
        if (progressToken != null) {
            progressTools.put(progressToken, new InFlight(name, caller));
        }
        CompletableFuture<McpSchema.CallToolResult> answer = session.client.callTool(new McpSchema.CallToolRequest(mcpName,
                        arguments, meta(name, progressToken)))
                .contextWrite(TrackingTransport.context(requestId)).toFuture();
        if (progressToken != null) {
            answer.whenComplete((r, e) -> progressTools.remove(progressToken));
        }
        try {
            CompletableFuture.anyOf(answer, ended).get(TimeUnit.NANOSECONDS.convert(callTimeout), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            answer.cancel(true);
            session.cancel(requestId.get(), name, "the client stopped waiting for tool '" + mcpName + "' after "
                    + ClientSession.describe(callTimeout));
            return ToolOutput.error("MCP server '" + label + "' did not answer tool '" + name + "' within "
                    + ClientSession.describe(callTimeout) + "; the call was abandoned");
        } catch (InterruptedException e) {
            answer.cancel(true);
            session.cancel(requestId.get(), name, "the caller of tool '" + mcpName + "' was interrupted");
            throw e;
        } catch (ExecutionException e) {
            log.trace("call of {} on {} failed: {}", mcpName, label, session.scrub(String.valueOf(e.getCause())));
        }
        if (!answer.isDone() && ended.isDone() && !session.closed.get()) {
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
        Throwable cause = answer.isCompletedExceptionally() ? ClientSession.failure(answer) : null;
        McpError refusal = cause == null ? null : ClientSession.find(cause, McpError.class);
        if (refusal != null) {
            return ToolOutput.error("MCP server '" + label + "' refused tool '" + name + "': "
                    + session.scrub(refusal.getMessage()));
        }
        if (cause != null && !ended.isDone()) {
            return ToolOutput.error("calling tool '" + name + "' on MCP server '" + label + "' failed: "
                    + session.scrub(ClientSession.rootMessage(cause)));
        }
        answer.cancel(true);
        return ToolOutput.error("MCP server '" + label + "' " + ended.join() + " while running tool '" + name + "'"
                + session.stderr());
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

    @Override
    public void progress(McpSchema.ProgressNotification note) {
        InFlight call = note.progressToken() == null ? null : progressTools.get(note.progressToken().toString());
        if (call == null) {
            log.debug("MCP server '{}' reports progress on no call of ours: {}", label, note.progressToken());
            return;
        }
        try {
            progress.accept(new McpToolClient.Progress(label, call.tool(), note.progress() == null ? 0 : note.progress(),
                    note.total(), note.message(), call.caller()));
        } catch (RuntimeException e) {
            log.warn("the progress listener of MCP server '{}' failed", label, e);
        }
    }
}
