package dev.shelly.modeladapter.scripted;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ReplyMetadata;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.modeladapter.Usage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
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
 *   <li>{@link #perChat} walks the script from its start for every distinct {@link Chat}: right
 *       for one completer shared by many delegated children running concurrently, each of which
 *       has a chat of its own, so every child sees the same script whatever the scheduling.
 * </ul>
 *
 * <p>Every reply carries {@link ReplyMetadata}: provider {@code scripted}, the step's usage
 * ({@link Usage#ZERO} unless given) and a stop reason ({@code TOOL_USE} when it calls tools,
 * {@code END_TURN} otherwise), unless the scripted message already has them.
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
    private final boolean perChat;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition called = lock.newCondition();
    private final List<Request> requests = new ArrayList<>();
    private final Map<Chat, int[]> cursors = new WeakHashMap<>();
    private int sharedCursor;

    private ScriptedCompleter(List<Step> steps, boolean perChat) {
        if (steps == null) {
            throw new IllegalArgumentException("ScriptedCompleter steps must not be null");
        }
        List<Step> copy = new ArrayList<>(steps.size());
        for (int i = 0; i < steps.size(); i++) {
            if (steps.get(i) == null) {
                throw new IllegalArgumentException("ScriptedCompleter steps[" + i + "] must not be null");
            }
            copy.add(steps.get(i));
        }
        this.steps = Collections.unmodifiableList(copy);
        this.perChat = perChat;
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
        return new ScriptedCompleter(steps, false);
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
        return new ScriptedCompleter(steps, true);
    }

    @Override
    public Message complete(Chat chat, List<ToolDefinition> tools) {
        return complete(chat, tools, null);
    }

    @Override
    public Message complete(Chat chat, List<ToolDefinition> tools, StreamListener listener) {
        if (chat == null) {
            throw new IllegalArgumentException("ScriptedCompleter.complete chat must not be null");
        }
        if (Thread.currentThread().isInterrupted()) {
            throw cancelled();
        }
        List<Message> seen = chat.messages();
        int index = next(chat, seen, tools == null ? List.of() : List.copyOf(tools));
        if (index >= steps.size()) {
            throw exhausted(index, seen);
        }
        Message reply = take(steps.get(index), chat);
        if (listener != null) {
            stream(reply, listener);
        }
        return reply;
    }

    private int next(Chat chat, List<Message> seen, List<ToolDefinition> tools) {
        lock.lock();
        try {
            int index;
            if (perChat) {
                int[] cursor = cursors.computeIfAbsent(chat, c -> new int[1]);
                index = cursor[0]++;
            } else {
                index = sharedCursor++;
            }
            requests.add(new Request(seen, tools, index));
            called.signalAll();
            return index;
        } finally {
            lock.unlock();
        }
    }

    private static Message take(Step step, Chat chat) {
        return switch (step) {
            case Step.Delayed d -> {
                sleep(d.delay());
                yield take(d.then(), chat);
            }
            case Step.Hang h -> {
                sleep(null);
                throw cancelled();
            }
            case Step.Fail f -> throw f.error();
            case Step.Answer a -> decorate(a.reply().apply(chat), a.usage());
        };
    }

    private static Message decorate(Message reply, Usage usage) {
        if (reply == null) {
            throw new IllegalStateException("a scripted answer returned null instead of a message");
        }
        Message m = reply;
        if (m.meta(ReplyMetadata.PROVIDER).isEmpty()) {
            m = m.withMeta(ReplyMetadata.PROVIDER, PROVIDER);
        }
        if (m.meta(ReplyMetadata.USAGE).isEmpty()) {
            m = m.withMeta(ReplyMetadata.USAGE, usage == null ? Usage.ZERO : usage);
        }
        if (m.meta(ReplyMetadata.STOP_REASON).isEmpty()) {
            m = m.withMeta(ReplyMetadata.STOP_REASON, m.hasToolCalls() ? StopReason.TOOL_USE : StopReason.END_TURN);
        }
        return m;
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

    private static void stream(Message reply, StreamListener listener) {
        int call = 0;
        for (Part part : reply.parts()) {
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
        ReplyMetadata.usage(reply).ifPresent(u -> listener.onDelta(new Delta.UsageDelta(u)));
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

    private ModelException exhausted(int index, List<Message> seen) {
        String last = seen.isEmpty() ? "the chat is empty"
                : "the chat's last message is from '" + seen.getLast().sender() + "' (" + seen.getLast().role() + "): "
                        + abbreviate(seen.getLast().text());
        return ModelException.builder(ModelException.Kind.INVALID_RESPONSE)
                .provider(PROVIDER)
                .providerMessage("the script has " + steps.size() + " step" + (steps.size() == 1 ? "" : "s")
                        + " and was called for step " + (index + 1) + (perChat ? " of this chat" : "") + "; " + last)
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
     * One call the scripted model received.
     *
     * @param messages the chat's messages at the time of the call
     * @param tools the tools offered
     * @param step the index of the script step that answered it, from 0 (may be past the end)
     */
    public record Request(List<Message> messages, List<ToolDefinition> tools, int step) {
        /** Copies the lists. */
        public Request {
            messages = List.copyOf(messages);
            tools = List.copyOf(tools);
        }

        /**
         * The text of the first system message.
         *
         * @return the system prompt, or an empty string when there is none
         */
        public String systemPrompt() {
            for (Message m : messages) {
                if (m.role() == dev.shelly.chats.Role.SYSTEM) {
                    return m.text();
                }
            }
            return "";
        }

        /**
         * The last message the model saw.
         *
         * @return the message
         * @throws java.util.NoSuchElementException when the chat was empty
         */
        public Message lastMessage() {
            return messages.getLast();
        }

        /**
         * The names of the tools offered, in order.
         *
         * @return the names
         */
        public List<String> toolNames() {
            List<String> names = new ArrayList<>(tools.size());
            for (ToolDefinition t : tools) {
                names.add(t.name());
            }
            return names;
        }
    }
}
