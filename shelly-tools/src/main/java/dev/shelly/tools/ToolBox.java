package dev.shelly.tools;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.internal.ArgumentsText;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * A named set of tools, and the one place where a {@link ToolCall} becomes a {@link ToolResult}.
 *
 * <p>{@link #call} never throws for a failing call: an unknown tool, arguments that are not a
 * JSON object, a handler that throws or runs past its time limit, each becomes an error result
 * whose text tells the model what went wrong. Typed tools, and tools made with
 * {@link Tool#withInputCheck()}, also answer arguments that do not fit their schema that way.
 * Registration and calls are safe from many threads. A toolbox can change while in use (an MCP
 * server's tools after {@code tools/list_changed}); {@linkplain #addListener listeners} hear of
 * every change. Several toolboxes searched in order are {@link ToolBoxes}.
 */
public final class ToolBox {
    private final ReentrantLock registration = new ReentrantLock();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private volatile Map<String, Tool> tools = Map.of();

    /**
     * Hears that the tools of a toolbox changed.
     */
    @FunctionalInterface
    public interface Listener {
        /**
         * Called after tools were added, removed or replaced, on the thread that changed them;
         * read the toolbox for its current tools. Must not block for long.
         *
         * @param box the toolbox that changed
         */
        void toolsChanged(ToolBox box);
    }

    /** An empty toolbox. */
    public ToolBox() {}

    /**
     * A toolbox holding the given tools.
     *
     * @param tools the tools
     * @return the toolbox
     */
    public static ToolBox of(Tool... tools) {
        ToolBox box = new ToolBox();
        box.register(tools);
        return box;
    }

    /**
     * Adds tools. All or none are added.
     *
     * @param tools the tools
     * @return this toolbox
     * @throws IllegalArgumentException when a name is already registered or given twice
     */
    public ToolBox register(Tool... tools) {
        if (tools == null) {
            throw new IllegalArgumentException("ToolBox.register tools must not be null");
        }
        List<Tool> given = checked(Arrays.asList(tools.clone()), "ToolBox.register");
        registration.lock();
        try {
            Map<String, Tool> next = new LinkedHashMap<>(this.tools);
            for (Tool tool : given) {
                if (next.putIfAbsent(tool.name(), tool) != null) {
                    throw new IllegalArgumentException("a tool named '" + tool.name() + "' is already registered");
                }
            }
            this.tools = Collections.unmodifiableMap(next);
        } finally {
            registration.unlock();
        }
        changed();
        return this;
    }

    /**
     * Replaces every tool at once: calls made afterwards see only the new tools.
     *
     * @param tools the new tools, in the order to list them
     * @return this toolbox
     * @throws IllegalArgumentException when a name is given twice; the toolbox is then unchanged
     */
    public ToolBox replaceAll(Collection<Tool> tools) {
        if (tools == null) {
            throw new IllegalArgumentException("ToolBox.replaceAll tools must not be null");
        }
        Map<String, Tool> next = new LinkedHashMap<>();
        for (Tool tool : checked(new ArrayList<>(tools), "ToolBox.replaceAll")) {
            if (next.putIfAbsent(tool.name(), tool) != null) {
                throw new IllegalArgumentException("ToolBox.replaceAll got two tools named '" + tool.name() + "'");
            }
        }
        registration.lock();
        try {
            this.tools = Collections.unmodifiableMap(next);
        } finally {
            registration.unlock();
        }
        changed();
        return this;
    }

    /**
     * Removes a tool.
     *
     * @param name the tool's name
     * @return true when a tool of that name was registered
     */
    public boolean remove(String name) {
        requireName(name, "ToolBox.remove");
        registration.lock();
        try {
            if (!tools.containsKey(name)) {
                return false;
            }
            Map<String, Tool> next = new LinkedHashMap<>(tools);
            next.remove(name);
            tools = Collections.unmodifiableMap(next);
        } finally {
            registration.unlock();
        }
        changed();
        return true;
    }

    /**
     * Registers a listener for changes of this toolbox's tools.
     *
     * @param listener called after every change
     * @return this toolbox
     */
    public ToolBox addListener(Listener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("ToolBox.addListener listener must not be null");
        }
        listeners.add(listener);
        return this;
    }

    /**
     * Unregisters a listener.
     *
     * @param listener a listener given to {@link #addListener}
     * @return true when it was registered
     */
    public boolean removeListener(Listener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("ToolBox.removeListener listener must not be null");
        }
        return listeners.remove(listener);
    }

    private void changed() {
        for (Listener listener : listeners) {
            listener.toolsChanged(this);
        }
    }

    static void requireName(String name, String where) {
        if (name == null) {
            throw new IllegalArgumentException(where + " name must not be null");
        }
    }

    private static List<Tool> checked(List<Tool> given, String where) {
        for (int i = 0; i < given.size(); i++) {
            if (given.get(i) == null) {
                throw new IllegalArgumentException(where + " tools[" + i + "] must not be null");
            }
        }
        return given;
    }

    /**
     * Looks a tool up.
     *
     * @param name the tool's name
     * @return the tool, or empty
     */
    public Optional<Tool> get(String name) {
        requireName(name, "ToolBox.get");
        return Optional.ofNullable(tools.get(name));
    }

    /**
     * Whether a tool of that name is registered.
     *
     * @param name the tool's name
     * @return true when present
     */
    public boolean contains(String name) {
        requireName(name, "ToolBox.contains");
        return tools.containsKey(name);
    }

    /**
     * The tools' names in registration order.
     *
     * @return the names
     */
    public List<String> names() {
        return List.copyOf(tools.keySet());
    }

    /**
     * The tools in registration order.
     *
     * @return the tools
     */
    public List<Tool> tools() {
        return List.copyOf(tools.values());
    }

    /**
     * What the model is told about each tool, in registration order.
     *
     * @return the definitions
     */
    public List<ToolDefinition> definitions() {
        return definitionsOf(tools.values());
    }

    /** The definitions of some tools, in their order. */
    static List<ToolDefinition> definitionsOf(Collection<Tool> tools) {
        List<ToolDefinition> defs = new ArrayList<>(tools.size());
        for (Tool tool : tools) {
            defs.add(tool.definition());
        }
        return Collections.unmodifiableList(defs);
    }

    /** Checks the arguments of a {@code call}, naming the caller ({@code ToolBox.call}, ...). */
    static void checkCall(String who, ToolCall call, ToolContext context, int maxResultChars) {
        if (call == null) {
            throw new IllegalArgumentException(who + " call must not be null");
        }
        if (context == null) {
            throw new IllegalArgumentException(who + " context must not be null");
        }
        ToolResults.checkLimit(maxResultChars, who + " maxResultChars");
    }

    /**
     * Runs one call and answers it; never throws for a failing call.
     *
     * <p>When the calling thread is interrupted while the handler runs, the handler is
     * interrupted, the result says the call was cancelled, and the caller's interrupt flag is
     * left set.
     *
     * <p>The result's text is cut to the tool's own limit, else {@link ToolResults#DEFAULT_MAX_CHARS}
     * (see {@link ToolResults}).
     *
     * @param call the model's tool call
     * @param context who is calling
     * @return the result, with {@code isError} set when the call failed
     */
    public ToolResult call(ToolCall call, ToolContext context) {
        return call(call, context, ToolResults.DEFAULT_MAX_CHARS);
    }

    /**
     * Runs one call and answers it, as {@link #call(ToolCall, ToolContext)}, with the caller's
     * limit on the result's size for tools without a limit of their own.
     *
     * @param call the model's tool call
     * @param context who is calling
     * @param maxResultChars the most characters of text the result keeps, unless the tool has
     *     its own limit; at least 1
     * @return the result, with {@code isError} set when the call failed
     */
    public ToolResult call(ToolCall call, ToolContext context, int maxResultChars) {
        checkCall("ToolBox.call", call, context, maxResultChars);
        Map<String, Tool> current = tools;
        Tool tool = current.get(call.name());
        if (tool == null) {
            return unknown(call, current.keySet());
        }
        return call(tool, call, context, maxResultChars);
    }

    /** The answer to a call of a tool nobody has. */
    static ToolResult unknown(ToolCall call, Collection<String> known) {
        return ToolResult.error(call.id(), "unknown tool '" + call.name() + "'; available tools: "
                + (known.isEmpty() ? "none" : String.join(", ", known)));
    }

    /** Parses the arguments of one call of a registered tool, runs it and cuts its result to the limit. */
    static ToolResult call(Tool tool, ToolCall call, ToolContext context, int maxResultChars) {
        ToolResult result = parseAndRun(tool, call, context);
        return ToolResults.truncate(result, tool.maxResultChars() > 0 ? tool.maxResultChars() : maxResultChars);
    }

    private static ToolResult parseAndRun(Tool tool, ToolCall call, ToolContext context) {
        if (tool.handler() instanceof ArgumentsText text) {
            ToolHandler read;
            try {
                read = text.read(call.arguments());
            } catch (RuntimeException e) { // a failing call is answered, never thrown
                return failed(call, e);
            }
            if (read != null) {
                return run(tool, read, call, null, context);
            }
        }
        JsonNode input;
        try {
            input = Json.MAPPER.readTree(call.arguments());
        } catch (JacksonException e) {
            return ToolResult.error(call.id(), "arguments for tool '" + call.name() + "' are not valid JSON ("
                    + e.getOriginalMessage() + "); send a JSON object matching the tool's input schema"
                    + youSent(call));
        }
        if (input == null || !input.isObject()) {
            return ToolResult.error(call.id(), "arguments for tool '" + call.name() + "' must be a JSON object, got "
                    + (input == null ? "nothing" : input.getNodeType().name().toLowerCase(java.util.Locale.ROOT))
                    + youSent(call));
        }
        return run(tool, tool.handler(), call, input, context);
    }

    /**
     * The model's own text, repeated in the error: providers' formats send arguments that are not
     * a JSON object back to the server as {@code {}} (strict servers refuse anything else), so the
     * result is where the model still sees what it wrote.
     */
    private static String youSent(ToolCall call) {
        return ". The arguments you sent: " + call.arguments();
    }

    private static ToolResult run(Tool tool, ToolHandler handler, ToolCall call, JsonNode input, ToolContext context) {
        if (Thread.currentThread().isInterrupted()) {
            return cancelled(call);
        }
        Duration timeout = tool.timeout();
        if (timeout == null) {
            try {
                return handler.call(input, context).toResult(call.id());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return cancelled(call);
            } catch (Exception e) {
                return failed(call, e);
            }
        }
        FutureTask<ToolOutput> task = new FutureTask<>(() -> handler.call(input, context));
        Thread.ofVirtual().name("tool-" + call.name()).start(task);
        try {
            return task.get(TimeUnit.NANOSECONDS.convert(timeout), TimeUnit.NANOSECONDS).toResult(call.id());
        } catch (TimeoutException e) {
            task.cancel(true);
            return ToolResult.error(call.id(), "tool '" + call.name() + "' did not finish within "
                    + describe(timeout) + " and was stopped");
        } catch (InterruptedException e) {
            task.cancel(true);
            Thread.currentThread().interrupt();
            return cancelled(call);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof InterruptedException) {
                return cancelled(call);
            }
            return failed(call, cause);
        } catch (CancellationException e) {
            return cancelled(call);
        }
    }

    private static ToolResult failed(ToolCall call, Throwable e) {
        String message = e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getSimpleName() : e.getMessage();
        return ToolResult.error(call.id(), "tool '" + call.name() + "' failed: " + message);
    }

    private static ToolResult cancelled(ToolCall call) {
        return ToolResult.error(call.id(), "tool '" + call.name() + "' was cancelled before it finished");
    }

    private static String describe(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    @Override
    public String toString() {
        return "ToolBox" + tools.keySet();
    }
}
