package dev.shelly.testing;

import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ResponseFormat;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.modeladapter.Usage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A model that follows a script: a test double for agents, deterministic and in-process.
 *
 * <pre>{@code
 * ScriptedCompleter model = ScriptedCompleter.of(
 *         Step.toolCall("get_weather", "{\"city\":\"Paris\"}"),
 *         Step.reply("It is sunny in Paris."));
 * // ... run an agent with it ...
 * model.requests().get(1).messages();   // what the model saw on its second call
 * }</pre>
 *
 * <p>Two ways to share a script between callers:
 * <ul>
 *   <li>{@link #of} walks one script across all calls, in the order they arrive: right for one
 *       agent, or for agents that never run at the same time.
 *   <li>{@link #perChat} walks the script from its start for every distinct conversation (the
 *       request's {@link ModelRequest#conversationId()}, which an agent sets to its chat's id):
 *       right for one completer shared by many delegated children running concurrently, each of
 *       which has a chat of its own, so every child sees the same script whatever the
 *       scheduling.
 * </ul>
 *
 * <p>Every {@link ModelResponse} names provider {@code scripted} (unless a
 * {@link Step#respond} step names another), carries the step's usage ({@link Usage#ZERO} unless
 * given), the step's model when {@link Step.Answer#withModel} set one, and a stop reason
 * ({@code TOOL_USE} when it calls tools, {@code END_TURN} otherwise) unless the step's response
 * gives its own.
 *
 * <p>Called through the streaming overload, it delivers the reply as deltas first: text split at
 * word boundaries, thinking, each tool call's start and arguments, then the usage.
 *
 * <p>An interrupted caller gets a {@link CancellationException} with its interrupt flag kept set,
 * as the {@link Completer} contract says; waiting steps ({@link Step#after}, {@link Step#hang})
 * answer interrupts at once. A call past the end of the script fails with a
 * {@link ModelException} of kind {@code INVALID_RESPONSE} that says so. Safe for many threads.
 */
public final class ScriptedCompleter implements Completer {
    /** The provider name on replies and errors. */
    public static final String PROVIDER = "scripted";

    private final List<Step> steps;
    private final Map<Kind, List<Step>> byKind;
    private final boolean perChat;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition called = lock.newCondition();
    private final List<Request> requests = new ArrayList<>();
    private final Map<String, int[]> cursors = new HashMap<>();

    private ScriptedCompleter(List<Step> steps, Map<Kind, List<Step>> byKind, boolean perChat) {
        this.steps = checked(steps, "ScriptedCompleter steps");
        this.byKind = Map.copyOf(byKind);
        this.perChat = perChat;
    }

    private static List<Step> checked(List<Step> steps, String what) {
        if (steps == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        List<Step> copy = new ArrayList<>(steps.size());
        for (int i = 0; i < steps.size(); i++) {
            if (steps.get(i) == null) {
                throw new IllegalArgumentException(what + "[" + i + "] must not be null");
            }
            copy.add(steps.get(i));
        }
        return Collections.unmodifiableList(copy);
    }

    /**
     * What a request asks for, as the scripted model tells requests apart: each kind can follow a
     * script of its own ({@link #on}).
     */
    public enum Kind {
        /** A turn of an agent's conversation: it has a conversation id, and may offer tools. */
        TURN,
        /** A request for an answer in a JSON Schema ({@link ResponseFormat.JsonSchema}): a structured answer. */
        STRUCTURED,
        /**
         * A request on the side of any conversation: no conversation id, no tools, no schema. What an
         * agent's context management sends to summarise older messages, and what a plain
         * {@code complete(ModelRequest.of(...))} sends.
         */
        SUMMARY;

        /**
         * The kind of a request.
         *
         * @param request the request
         * @return its kind
         */
        public static Kind of(ModelRequest request) {
            if (request.options().responseFormat() instanceof ResponseFormat.JsonSchema) {
                return STRUCTURED;
            }
            return request.conversationId() == null && request.tools().isEmpty() ? SUMMARY : TURN;
        }
    }

    /**
     * A completer taking the steps in order across all calls.
     *
     * @param steps the script
     * @return the completer
     */
    public static ScriptedCompleter of(Step... steps) {
        return of(steps == null ? null : List.of(steps));
    }

    /**
     * A completer taking the steps in order across all calls.
     *
     * @param steps the script
     * @return the completer
     */
    public static ScriptedCompleter of(List<Step> steps) {
        return new ScriptedCompleter(steps, Map.of(), false);
    }

    /**
     * A completer that walks the script from its start for each distinct chat.
     *
     * @param steps the script every chat follows
     * @return the completer
     */
    public static ScriptedCompleter perChat(Step... steps) {
        return perChat(steps == null ? null : List.of(steps));
    }

    /**
     * A completer that walks the script from its start for each distinct chat.
     *
     * @param steps the script every chat follows
     * @return the completer
     */
    public static ScriptedCompleter perChat(List<Step> steps) {
        return new ScriptedCompleter(steps, Map.of(), true);
    }

    /**
     * A completer like this one whose requests of one kind follow a script of their own; requests
     * of the other kinds follow the script they followed before. For example, a summary for an
     * agent's context compaction beside its turns:
     *
     * <pre>{@code
     * ScriptedCompleter model = ScriptedCompleter.perChat(Step.reply("one"), Step.reply("two"))
     *         .on(Kind.SUMMARY, Step.reply("The user asked two questions."));
     * }</pre>
     *
     * <p>The kind's script is walked per chat like the main one when the completer is
     * {@link #perChat} and the request has a conversation id, and across all its calls otherwise.
     *
     * @param kind the kind of request
     * @param steps the script for that kind
     * @return a new completer, with no calls yet
     */
    public ScriptedCompleter on(Kind kind, Step... steps) {
        if (kind == null) {
            throw new IllegalArgumentException("ScriptedCompleter.on kind must not be null");
        }
        Map<Kind, List<Step>> copy = new HashMap<>(byKind);
        copy.put(kind, checked(steps == null ? null : List.of(steps), "ScriptedCompleter.on(" + kind + ") steps"));
        return new ScriptedCompleter(this.steps, copy, perChat);
    }

    @Override
    public ModelResponse complete(ModelRequest request) {
        return complete(request, null);
    }

    @Override
    public ModelResponse complete(ModelRequest request, StreamListener listener) {
        if (request == null) {
            throw new IllegalArgumentException("ScriptedCompleter.complete request must not be null");
        }
        Kind kind = Kind.of(request);
        List<Step> script = byKind.getOrDefault(kind, steps);
        if (perChat && request.conversationId() == null && script == steps) {
            throw new IllegalStateException("ScriptedCompleter.perChat needs requests with a conversationId; "
                    + "an agent sets it to its chat's id (script a " + kind + " request with on(Kind." + kind + ", ...))");
        }
        if (Thread.currentThread().isInterrupted()) {
            throw cancelled();
        }
        int index = next(request, kind, script == steps ? null : kind);
        if (index >= script.size()) {
            throw exhausted(index, request.messages(), script.size(), script == steps ? null : kind,
                    perChat && request.conversationId() != null);
        }
        ModelResponse response = take(script.get(index), request);
        if (listener != null) {
            stream(response, listener);
        }
        return response;
    }

    /** The next step of the script a request follows: per kind when it has its own, per chat when asked. */
    private int next(ModelRequest request, Kind kind, Kind ownScript) {
        lock.lock();
        try {
            String key = (ownScript == null ? "" : ownScript.name())
                    + (perChat && request.conversationId() != null ? "/" + request.conversationId() : "");
            int index = cursors.computeIfAbsent(key, c -> new int[1])[0]++;
            requests.add(new Request(request, index, kind));
            called.signalAll();
            return index;
        } finally {
            lock.unlock();
        }
    }

    private static ModelResponse take(Step step, ModelRequest request) {
        return switch (step) {
            case Step.Delayed d -> {
                sleep(d.delay());
                yield take(d.then(), request);
            }
            case Step.Hang h -> {
                sleep(null);
                throw cancelled();
            }
            case Step.Fail f -> throw f.error();
            case Step.Answer a -> decorate(a.respond().apply(request), a.usage(), a.model());
        };
    }

    private static ModelResponse decorate(ModelResponse response, Usage usage, String model) {
        if (response == null) {
            throw new IllegalStateException("a scripted answer returned null instead of a response");
        }
        return new ModelResponse(response.message(), usage != null ? usage : response.usage(),
                response.stopReason(), response.providerStopReason(), model != null ? model : response.model(),
                response.responseId(), response.provider() != null ? response.provider() : PROVIDER);
    }

    /** Waits for a duration, or forever when null; an interrupt ends the wait with a cancellation. */
    private static void sleep(Duration delay) {
        try {
            if (delay == null) {
                while (true) {
                    Thread.sleep(Long.MAX_VALUE);
                }
            }
            Thread.sleep(delay);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw cancelled();
        }
    }

    private static void stream(ModelResponse response, StreamListener listener) {
        int call = 0;
        for (Part part : response.message().parts()) {
            switch (part) {
                case Text t -> {
                    for (String chunk : words(t.text())) {
                        listener.onDelta(new Delta.TextDelta(chunk));
                    }
                }
                case Thinking th -> {
                    if (!th.text().isEmpty()) {
                        listener.onDelta(new Delta.ThinkingDelta(th.text()));
                    }
                }
                case ToolCall tc -> {
                    listener.onDelta(new Delta.ToolCallStart(call, tc.id(), tc.name()));
                    listener.onDelta(new Delta.ToolCallArguments(call, tc.arguments()));
                    call++;
                }
                default -> {
                    // Other parts (images, custom parts) have no delta form; they arrive with the message.
                }
            }
        }
        listener.onDelta(new Delta.UsageDelta(response.usage()));
    }

    /** Splits text before each run of white space, so the chunks concatenate to the text. */
    static List<String> words(String text) {
        List<String> chunks = new ArrayList<>();
        int start = 0;
        for (int i = 1; i < text.length(); i++) {
            if (Character.isWhitespace(text.charAt(i)) && !Character.isWhitespace(text.charAt(i - 1))) {
                chunks.add(text.substring(start, i));
                start = i;
            }
        }
        if (start < text.length()) {
            chunks.add(text.substring(start));
        }
        return chunks;
    }

    private static CancellationException cancelled() {
        return new CancellationException("the scripted model call was interrupted");
    }

    private ModelException exhausted(int index, List<Message> seen, int size, Kind ownScript, boolean ofChat) {
        String last = seen.isEmpty() ? "the chat is empty"
                : "the chat's last message is from '" + seen.getLast().sender() + "' (" + seen.getLast().role() + "): "
                        + abbreviate(seen.getLast().text());
        return ModelException.builder(ModelException.Kind.INVALID_RESPONSE)
                .provider(PROVIDER)
                .providerMessage("the " + (ownScript == null ? "" : ownScript + " ") + "script has " + size + " step"
                        + (size == 1 ? "" : "s") + " and was called for step " + (index + 1) + (ofChat ? " of this chat" : "")
                        + "; " + last)
                .build();
    }

    private static String abbreviate(String text) {
        String oneLine = text.replace('\n', ' ');
        return oneLine.length() <= 120 ? "'" + oneLine + "'" : "'" + oneLine.substring(0, 117) + "...'";
    }

    /**
     * Every call so far, in the order the calls arrived.
     *
     * @return a copy
     */
    public List<Request> requests() {
        lock.lock();
        try {
            return List.copyOf(requests);
        } finally {
            lock.unlock();
        }
    }

    /**
     * How many calls arrived so far, finished or not.
     *
     * @return the count
     */
    public int callCount() {
        lock.lock();
        try {
            return requests.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Blocks until at least {@code n} calls have arrived, for tests that act while the model is
     * busy (for example, interrupt an agent while its model hangs).
     *
     * @param n the number of calls to wait for
     * @param timeout how long to wait at most
     * @return true when {@code n} calls arrived, false when the timeout passed first
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public boolean awaitCalls(int n, Duration timeout) throws InterruptedException {
        long nanos = TimeUnit.NANOSECONDS.convert(timeout);
        lock.lockInterruptibly();
        try {
            while (requests.size() < n) {
                if (nanos <= 0) {
                    return false;
                }
                nanos = called.awaitNanos(nanos);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The number of steps in the script.
     *
     * @return the script's length
     */
    public int size() {
        return steps.size();
    }

    @Override
    public String toString() {
        return "ScriptedCompleter[" + steps.size() + " steps" + (perChat ? ", per chat" : "") + ", "
                + callCount() + " calls]";
    }

    /**
     * One call the scripted model received, with the accessors of {@link ModelRequest} under the
     * same names.
     *
     * @param request the request as the model received it
     * @param step the index of the script step it was given (0-based), in the script it followed
     * @param kind what it asked for
     */
    public record Request(ModelRequest request, int step, Kind kind) {
        /** Checks the request. */
        public Request {
            if (request == null) {
                throw new IllegalArgumentException("ScriptedCompleter.Request request must not be null");
            }
            if (kind == null) {
                kind = Kind.of(request);
            }
        }

        /**
         * The messages sent, system prompt first when there is one.
         *
         * @return the messages
         */
        public List<Message> messages() {
            return request.messages();
        }

        /**
         * The tools offered.
         *
         * @return the tool definitions
         */
        public List<ToolDefinition> tools() {
            return request.tools();
        }

        /**
         * The options sent.
         *
         * @return the options
         */
        public ModelOptions options() {
            return request.options();
        }

        /**
         * The conversation the request belongs to, as {@link ModelRequest#conversationId()}.
         *
         * @return the id, or null for a request on the side (a summary)
         */
        public String conversationId() {
            return request.conversationId();
        }

        /**
         * The system prompt, as {@link ModelRequest#systemPrompt()}.
         *
         * @return the text of the first message when it is a system message
         */
        public Optional<String> systemPrompt() {
            return request.systemPrompt();
        }

        /**
         * The last message sent, as {@link ModelRequest#last()}.
         *
         * @return the last message, empty when none was sent
         */
        public Optional<Message> last() {
            return request.last();
        }

        /**
         * The names of the tools offered, in order.
         *
         * @return the names
         */
        public List<String> toolNames() {
            List<String> names = new ArrayList<>(request.tools().size());
            for (ToolDefinition t : request.tools()) {
                names.add(t.name());
            }
            return names;
        }
    }
}
