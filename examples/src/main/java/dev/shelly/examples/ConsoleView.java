package dev.shelly.examples;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.AgentListener;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.FallbackCompleter.FallbackEvent;
import dev.shelly.modeladapter.FallbackCompleter.FallbackListener;
import dev.shelly.modeladapter.RetryingCompleter.RetryEvent;
import dev.shelly.modeladapter.RetryingCompleter.RetryListener;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Shows what agents do on a terminal, as it happens: the top agent's text as it streams, and one
 * short line per tool call, result, delegation and retry.
 *
 * <pre>
 * Let me look up both cities.
 *   → get_weather {"city":"Paris"}
 *   ← get_weather: 18°C, light rain
 *   → delegate researcher: Find the key facts about virtual threads
 *     [researcher] → search_notes {"query":"virtual threads"}
 *   ← researcher: Findings: ...
 * It is 18°C and raining in Paris.
 * </pre>
 *
 * Lines of delegated agents are indented by their depth and carry their name. Only the top
 * agent's text is streamed; a child's answer shows as the result of its delegation. A reply
 * that arrives without deltas (a completer that does not stream) is printed whole.
 *
 * <p>Use it as an agent's listener (children inherit it), as a provider's retry listener and as
 * a fallback's listener.
 * Safe for the concurrent calls agents make: every line is written whole.
 */
public final class ConsoleView implements AgentListener, RetryListener, FallbackListener {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int MAX_LINE = 160;

    private final PrintStream out;
    private final ReentrantLock lock = new ReentrantLock();
    private boolean atLineStart = true;
    private boolean streamed;
    /** The calls shown as started and not yet finished, by run and call id. */
    private final Set<String> startedCalls = ConcurrentHashMap.newKeySet();

    /**
     * A view that writes to a stream.
     *
     * @param out where to write, e.g. {@link System#out}
     */
    public ConsoleView(PrintStream out) {
        if (out == null) {
            throw new IllegalArgumentException("ConsoleView out must not be null");
        }
        this.out = out;
    }

    @Override
    public void onEvent(AgentEvent event) {
        int depth = event.source().depth();
        switch (event) {
            case AgentEvent.CompletionStarted e when depth == 0 -> withLock(() -> streamed = false);
            case AgentEvent.StreamDelta e when depth == 0 && e.delta() instanceof Delta.TextDelta t -> text(t.text());
            case AgentEvent.CompletionFinished e when depth == 0 -> withLock(() -> {
                if (!streamed && !e.reply().text().isEmpty()) {
                    write(e.reply().text());
                }
            });
            case AgentEvent.ToolCallStarted e -> started(e.source(), e.call());
            case AgentEvent.ToolCallFinished e -> finished(e.source(), e.call(), e.result());
            case AgentEvent.AgentFinished e when depth > 0 ->
                    line(e.source(), "done in " + seconds(e.took()));
            case AgentEvent.AgentFailed e when depth > 0 ->
                    line(e.source(), (e.cancelled() ? "cancelled" : "failed: " + oneLine(e.error().getMessage())));
            default -> {
                // Other events (messages added, children's text) would only repeat what is shown.
            }
        }
    }

    @Override
    public void onRetry(RetryEvent event) {
        note("  … " + oneLine(event.failure().getMessage()) + "; retrying in " + seconds(event.delay()) + " (attempt "
                + (event.attempt() + 1) + " of " + event.maxAttempts() + ")");
    }

    @Override
    public void onFallback(FallbackEvent event) {
        note("  … " + (event.failure() == null ? event.from() + " is skipped after repeated failures"
                : oneLine(event.failure().getMessage())) + "; continuing on " + event.to());
    }

    /**
     * Writes a line of its own (after ending any streamed text), such as a program's remark.
     *
     * @param line the text
     */
    public void note(String line) {
        withLock(() -> {
            endLine();
            out.println(line);
            out.flush();
        });
    }

    /** Ends the current line if streamed text left it open. */
    public void finish() {
        withLock(this::endLine);
    }

    /**
     * Streams text: written as it comes, without a line break.
     *
     * @param text the piece of text
     */
    public void text(String text) {
        withLock(() -> {
            streamed = true;
            write(text);
        });
    }

    private void started(AgentEvent.Source source, ToolCall call) {
        startedCalls.add(source.runId() + "/" + call.id());
        if (call.name().equals("delegate")) {
            JsonNode tasks = parse(call.arguments()).get("tasks");
            if (tasks != null && tasks.isArray() && !tasks.isEmpty()) {
                for (JsonNode task : tasks) {
                    line(source, "→ delegate " + field(task, "agent") + ": " + field(task, "task"));
                }
                return;
            }
        }
        line(source, "→ " + call.name() + (isEmptyObject(call.arguments()) ? "" : " " + compact(call.arguments())));
    }

    private void finished(AgentEvent.Source source, ToolCall call, ToolResult result) {
        if (!startedCalls.remove(source.runId() + "/" + call.id())) {
            started(source, call); // refused before it ran (a policy or a hook): show the call it refused
            startedCalls.remove(source.runId() + "/" + call.id());
        }
        if (call.name().equals("delegate")) {
            JsonNode results = parse(result.text());
            if (results.isArray() && !results.isEmpty()) {
                for (JsonNode r : results) {
                    line(source, r.has("error")
                            ? "← " + field(r, "agent") + " failed: " + field(r, "error")
                            : "← " + field(r, "agent") + ": " + field(r, "result"));
                }
                return;
            }
        }
        line(source, "← " + call.name() + (result.isError() ? " failed: " : ": ") + result.text());
    }

    private void line(AgentEvent.Source source, String text) {
        String indent = "  ".repeat(source.depth() + 1);
        String who = source.depth() == 0 ? "" : "[" + source.agent() + "] ";
        note(clip(indent + who + oneLine(text)));
    }

    private void write(String text) {
        if (text.isEmpty()) {
            return;
        }
        out.print(text);
        out.flush();
        atLineStart = text.endsWith("\n");
    }

    private void endLine() {
        if (!atLineStart) {
            out.println();
            atLineStart = true;
        }
    }

    private void withLock(Runnable action) {
        lock.lock();
        try {
            action.run();
        } finally {
            lock.unlock();
        }
    }

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (JacksonException e) {
            return JSON.missingNode();
        }
    }

    private static String field(JsonNode node, String name) {
        JsonNode v = node.get(name);
        return v == null ? "?" : v.isString() ? v.stringValue() : v.toString();
    }

    private static boolean isEmptyObject(String json) {
        JsonNode node = parse(json);
        return node.isObject() && node.isEmpty();
    }

    /** JSON arguments on one line, as compact as they come. */
    private static String compact(String json) {
        JsonNode node = parse(json);
        return node.isMissingNode() ? json : node.toString();
    }

    static String oneLine(String text) {
        return text == null ? "" : text.strip().replaceAll("\\s+", " ");
    }

    static String clip(String line) {
        return line.length() <= MAX_LINE ? line : line.substring(0, MAX_LINE - 1) + "…";
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }
}
