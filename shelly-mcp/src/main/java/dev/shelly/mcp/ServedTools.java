package dev.shelly.mcp;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.RunValues;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The toolbox an {@link McpToolServer} serves, as the SDK's tools: offered when the server starts
 * and kept in line with the toolbox afterwards (each change, on a thread of its own, sends
 * {@code tools/list_changed}); each {@code tools/call} runs through {@link ToolBox#call} on a
 * virtual thread, with a {@link ToolContext} naming the MCP client as the agent.
 */
final class ServedTools {
    private static final Logger log = LoggerFactory.getLogger(McpToolServer.class);
    /** Schemas are read into ordered maps, so clients see their keys in the toolbox's order. */
    private static final TypeReference<LinkedHashMap<String, Object>> SCHEMA = new TypeReference<>() {};

    private final McpToolServer.Builder settings;
    private final ToolBox box;
    private final JsonMapper json;
    private final ExecutorService handlers = Executors.newVirtualThreadPerTaskExecutor();
    private final Scheduler handlerScheduler = Schedulers.fromExecutor(handlers);
    private final AtomicLong calls = new AtomicLong();
    private final ReentrantLock sync = new ReentrantLock();
    private final Map<String, ToolDefinition> offered = new LinkedHashMap<>();
    /** Brings toolbox changes to the SDK server one at a time, off the thread that changed the toolbox. */
    private final ExecutorService offering = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("mcp-offer").factory());
    private final ToolBox.Listener listener = changed -> offerLater();
    private McpAsyncServer server;
    private volatile boolean closed;

    ServedTools(McpToolServer.Builder settings, JsonMapper json) {
        this.settings = settings;
        this.box = settings.box;
        this.json = json;
    }

    /** The virtual threads handlers, readers and renderers run on. */
    Scheduler threads() {
        return handlerScheduler;
    }

    /** The tools to start with; from now on the toolbox is followed. */
    List<McpServerFeatures.AsyncToolSpecification> follow() {
        sync.lock();
        try {
            box.addListener(listener);
            List<McpServerFeatures.AsyncToolSpecification> tools = new ArrayList<>();
            for (ToolDefinition definition : box.definitions()) {
                tools.add(spec(definition));
                offered.put(definition.name(), definition);
            }
            return tools;
        } finally {
            sync.unlock();
        }
    }

    /** The server is built: changes made to the toolbox meanwhile are offered now. */
    void started(McpAsyncServer started) {
        sync.lock();
        try {
            this.server = started;
        } finally {
            sync.unlock();
        }
        offerTools();
    }

    /** Stops following the toolbox: nothing is offered any more. */
    void unfollow() {
        closed = true;
        box.removeListener(listener);
    }

    /** Stops the calls in flight and the offering. */
    void close() {
        offering.shutdownNow();
        handlers.shutdownNow();
    }

    private void offerLater() {
        try {
            offering.execute(this::offerTools);
        } catch (RejectedExecutionException e) {
            log.debug("MCP server '{}' is closed; a toolbox change is not offered", settings.name);
        }
    }

    /** Brings the offered tools in line with the toolbox; each change sends tools/list_changed. */
    private void offerTools() {
        sync.lock();
        try {
            if (server == null || closed) {
                return;
            }
            Map<String, ToolDefinition> wanted = new LinkedHashMap<>();
            for (ToolDefinition definition : box.definitions()) {
                wanted.put(definition.name(), definition);
            }
            for (String name : new ArrayList<>(offered.keySet())) {
                if (!offered.get(name).equals(wanted.get(name))) {
                    change(server.removeTool(name), settings.name, "remove tool", name);
                    offered.remove(name);
                }
            }
            for (ToolDefinition definition : wanted.values()) {
                if (!offered.containsKey(definition.name())) {
                    change(server.addTool(spec(definition)), settings.name, "add tool", definition.name());
                    offered.put(definition.name(), definition);
                }
            }
        } finally {
            sync.unlock();
        }
    }

    /** Waits for a change to the SDK server; a failure is logged. */
    static void change(Mono<Void> step, String server, String what, String name) {
        try {
            step.block(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            log.debug("MCP server '{}': {} '{}': {}", server, what, name, e.toString());
        }
    }

    private McpServerFeatures.AsyncToolSpecification spec(ToolDefinition definition) {
        McpSchema.Tool.Builder tool = McpSchema.Tool.builder(definition.name(), json.readValue(definition.inputSchema(), SCHEMA))
                .description(definition.description());
        String outputSchema = settings.outputSchemas.get(definition.name());
        if (outputSchema != null) {
            tool.outputSchema(json.readValue(outputSchema, SCHEMA));
        }
        return McpServerFeatures.AsyncToolSpecification.builder()
                .tool(tool.build())
                .callHandler((exchange, request) -> Mono.fromCallable(() -> call(exchange, request)).subscribeOn(handlerScheduler))
                .build();
    }

    private McpSchema.CallToolResult call(McpAsyncServerExchange exchange, McpSchema.CallToolRequest request) {
        McpSchema.Implementation client = exchange.getClientInfo();
        String caller = client == null || client.name() == null || client.name().isBlank() ? "mcp-client" : client.name();
        String arguments = json.writeValueAsString(request.arguments() == null ? Map.of() : request.arguments());
        ToolCall call = new ToolCall("mcp-" + calls.incrementAndGet(), request.name(), arguments);
        Map<String, Object> meta = request.meta() == null ? Map.of() : request.meta();
        ServedCall served = new ServedCall(settings.name, request.name(), exchange, meta.get("progressToken"));
        ToolContext context = new ToolContext(caller, null, 0, null, null, exchange.sessionId(),
                RunValues.EMPTY.with(McpServerCall.KEY, served));
        ToolResult result = settings.wrapper.call(request.name(), meta, () -> box.call(call, context));
        if (result == null) {
            result = ToolResult.error(call.id(), "the call wrapper of MCP server '" + settings.name
                    + "' returned no result for tool '" + request.name() + "'");
        }
        Thread.interrupted();
        McpSchema.CallToolResult reply = served.reply(result.isError());
        return reply != null ? reply : McpContent.toMcp(result);
    }
}
