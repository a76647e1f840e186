package dev.shelly.agent.internal;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.AgentException;
import dev.shelly.agent.context.ContextPolicy;
import dev.shelly.agent.context.ContextStrategy;
import dev.shelly.agent.context.ContextView;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.Usage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;

/**
 * The model's view of one call of a run, as a {@link ContextManager} builds it and the policy's
 * strategies shape it: the prompt, the agent's latest summary, the conversation since. The loop
 * sends {@link #list()} and {@link #toolList()}; what reaches the chat (summaries, notes) goes
 * through the run.
 */
public final class CallView implements ContextView {
    /** What the summariser reads at most when the window is unknown. */
    private static final int SUMMARY_INPUT_CHARS = 400_000;

    private final ContextManager manager;
    private final ContextRun run;
    private final int iteration;
    final List<Message> messages = new ArrayList<>();
    private int[] chatIndex = new int[64];
    private List<ToolDefinition> tools;
    private final List<ToolDefinition> offered;
    int first;
    private long estimate;
    /** The estimate of {@link #tools}, or -1 until asked. */
    private long toolsEstimate = -1;
    /** How many messages at the start are the previous call's, as its strategies left them. */
    private int carried;
    /** The chat index the messages still to add start at. */
    int chatSize;

    CallView(ContextManager manager, ContextRun run, int iteration, List<ToolDefinition> offered) {
        this.manager = manager;
        this.run = run;
        this.iteration = iteration;
        this.tools = offered;
        this.offered = offered;
    }

    /**
     * A copy of this shaped view for the next call, with the tools offered then.
     *
     * @param chatSize the chat's size when this view was shaped: where the next one's new messages start
     */
    CallView next(int nextIteration, List<ToolDefinition> nextOffered, int chatSize) {
        CallView view = new CallView(manager, run, nextIteration, nextOffered);
        view.messages.addAll(messages);
        view.chatIndex = Arrays.copyOf(chatIndex, Math.max(64, chatIndex.length));
        view.first = first;
        view.estimate = estimate;
        view.chatSize = chatSize;
        view.carried = messages.size();
        if (nextOffered == tools) {
            view.toolsEstimate = toolsEstimate;
        }
        return view;
    }

    void add(Message m, int index) {
        if (messages.size() == chatIndex.length) {
            chatIndex = Arrays.copyOf(chatIndex, chatIndex.length * 2);
        }
        chatIndex[messages.size()] = index;
        messages.add(m);
        if (manager.policy().active()) {
            estimate += index >= 0 ? manager.account().remember(m) : manager.account().tokens(m);
        }
    }

    /**
     * Whether a strategy changed the tools offered.
     *
     * @return true when the tools to send are not the ones offered
     */
    public boolean scoped() {
        return tools != offered;
    }

    /**
     * The tools to send, as the strategies left them.
     *
     * @return the tools
     */
    public List<ToolDefinition> toolList() {
        return tools;
    }

    /**
     * The messages to send, as the strategies left them: a read-only list over the view.
     *
     * @return the messages
     */
    public List<Message> list() {
        return Collections.unmodifiableList(messages);
    }

    @Override
    public String agent() {
        return manager.agent.name();
    }

    @Override
    public int iteration() {
        return iteration;
    }

    @Override
    public List<Message> messages() {
        return List.copyOf(messages);
    }

    @Override
    public int size() {
        return messages.size();
    }

    @Override
    public Message message(int index) {
        return messages.get(index);
    }

    @Override
    public void replace(int index, Message message) {
        if (index < first || index >= messages.size()) {
            throw new IllegalArgumentException("ContextView.replace: index " + index + " is not a conversation message ("
                    + first + " to " + (messages.size() - 1) + ")");
        }
        Message old = messages.get(index);
        if (message == null || message.role() != old.role() || !sameIds(message, old)) {
            throw new IllegalArgumentException("ContextView.replace: the message at " + index + " must keep its role ("
                    + old.role() + ") and its tool-call ids " + ids(old));
        }
        estimate += manager.account().remember(message) - manager.account().tokens(old);
        messages.set(index, message);
        manager.replaced();
    }

    /** Whether two messages hold the same tool calls and results, by id, in order. */
    private static boolean sameIds(Message a, Message b) {
        List<Part> x = a.parts();
        List<Part> y = b.parts();
        int i = 0;
        int j = 0;
        while (true) {
            while (i < x.size() && !(x.get(i) instanceof ToolCall || x.get(i) instanceof ToolResult)) {
                i++;
            }
            while (j < y.size() && !(y.get(j) instanceof ToolCall || y.get(j) instanceof ToolResult)) {
                j++;
            }
            if (i == x.size() || j == y.size()) {
                return i == x.size() && j == y.size();
            }
            Part p = x.get(i);
            Part q = y.get(j);
            boolean same = p instanceof ToolCall c ? q instanceof ToolCall d && c.id().equals(d.id())
                    : q instanceof ToolResult r && ((ToolResult) p).toolCallId().equals(r.toolCallId());
            if (!same) {
                return false;
            }
            i++;
            j++;
        }
    }

    private static List<String> ids(Message m) {
        List<String> ids = new ArrayList<>();
        for (Part p : m.parts()) {
            if (p instanceof ToolCall c) {
                ids.add(c.id());
            } else if (p instanceof ToolResult r) {
                ids.add(r.toolCallId());
            }
        }
        return ids;
    }

    @Override
    public int firstMessage() {
        return first;
    }

    @Override
    public boolean canCutAt(int index) {
        return index > first && index < messages.size() && messages.get(index).role() != Role.TOOL
                && chatIndex[index] >= 0;
    }

    @Override
    public Optional<String> summary() {
        if (first < 2 || !ContextManager.isSummary(messages.get(1))) {
            return Optional.empty();
        }
        String text = messages.get(1).text();
        return Optional.of(text.startsWith(ContextPolicy.SUMMARY_HEADING)
                ? text.substring(ContextPolicy.SUMMARY_HEADING.length()) : text);
    }

    @Override
    public List<ToolDefinition> tools() {
        return Collections.unmodifiableList(tools);
    }

    @Override
    public void tools(List<ToolDefinition> value) {
        if (value == null) {
            throw new IllegalArgumentException("ContextView.tools must not be null");
        }
        tools = List.copyOf(value);
        toolsEstimate = -1;
    }

    @Override
    public int carriedOver() {
        return carried;
    }

    @Override
    public boolean overflowed() {
        return manager.overflowing();
    }

    /** The estimate of the request as the view stands, without the provider's count. */
    long estimated() {
        if (toolsEstimate < 0) {
            toolsEstimate = manager.account().tools(tools);
        }
        return estimate + 3 + toolsEstimate;
    }

    @Override
    public long tokens() {
        return manager.account().counted(estimated());
    }

    @Override
    public long tokens(Message message) {
        return manager.account().tokens(message);
    }

    @Override
    public OptionalInt window() {
        return manager.account().window();
    }

    @Override
    public Usage usage() {
        return run.usage();
    }

    @Override
    public Duration elapsed() {
        return run.elapsed();
    }

    @Override
    public String summarize(List<Message> older, Completer completer, String instructions) {
        if (older == null || instructions == null || instructions.isBlank()) {
            throw new IllegalArgumentException("ContextView.summarize needs messages and instructions");
        }
        OptionalInt w = window();
        // About three quarters of the window, at four characters a token: the summariser is
        // usually the agent's own model, and its request must fit the same window.
        int cap = w.isPresent() ? (int) Math.min(SUMMARY_INPUT_CHARS, w.getAsInt() * 3L) : SUMMARY_INPUT_CHARS;
        String previous = summary().orElse(null);
        String text = Transcript.of(older, cap);
        String ask = previous == null ? "Messages to summarise:\n\n" + text
                : "Previous summary:\n\n" + previous + "\n\nMessages to add to it:\n\n" + text;
        String agent = manager.agent.name();
        Completer model = completer != null ? completer : manager.policy().summarizer().orElse(manager.agent.completer());
        ModelRequest request = new ModelRequest(List.of(Message.system(instructions), Message.user(ask)), List.of(),
                ModelOptions.NONE, null);
        ModelResponse response = model.complete(request);
        if (response == null) {
            throw new AgentException(agent, "the summariser of agent '" + agent
                    + "' returned null instead of a response", null);
        }
        Usage usage = response.usage();
        run.record(usage, usage.equals(Usage.ZERO) ? Cost.ZERO : manager.agent.prices().cost(response.model(), usage));
        String written = response.message().text().strip();
        if (written.isEmpty()) {
            throw new AgentException(agent, "the summariser of agent '" + agent
                    + "' returned an empty summary; the context was not compacted", null);
        }
        return written;
    }

    @Override
    public void compact(int from, String text, String strategy) {
        if (!canCutAt(from)) {
            throw new IllegalArgumentException("ContextView.compact: the view may not be cut at " + from
                    + " (a cut resumes at a conversation message after the first that is not a tool message)");
        }
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("ContextView.compact needs a summary");
        }
        long before = tokens();
        int replaced = from - first;
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put(ContextPolicy.KIND, ContextPolicy.SUMMARY);
        meta.put(ContextPolicy.FROM, chatIndex[from]);
        meta.put(ContextPolicy.AGENT, manager.agent.name());
        meta.put(ContextPolicy.STRATEGY, strategy);
        Message written = new Message(ContextPolicy.SENDER, Role.USER,
                List.of(new Text(ContextPolicy.SUMMARY_HEADING + text.strip())), meta);
        int index = run.append(written);
        List<Message> keptMessages = new ArrayList<>(messages.subList(from, messages.size()));
        int[] keptIndex = Arrays.copyOfRange(chatIndex, from, messages.size());
        Message prompt = messages.get(0);
        int promptIndex = chatIndex[0];
        messages.clear();
        estimate = 0;
        carried = 0;
        add(prompt, promptIndex);
        add(written, index);
        first = 2;
        for (int i = 0; i < keptMessages.size(); i++) {
            add(keptMessages.get(i), keptIndex[i]);
        }
        manager.compacted(written, index, keptIndex[0]);
        run.emit(new AgentEvent.ContextCompacted(run.source(), iteration, strategy, before, tokens(), replaced));
    }

    @Override
    public void note(String text, String strategy) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("ContextView.note needs a text");
        }
        Message m = new Message(ContextPolicy.SENDER, Role.USER, List.of(new Text(text)),
                Map.of(ContextPolicy.KIND, ContextPolicy.NOTE, ContextPolicy.STRATEGY, strategy));
        int index = run.append(m);
        add(m, index);
    }

    @Override
    public void trimmed(String strategy, long tokensBefore, int results) {
        run.emit(new AgentEvent.ContextTrimmed(run.source(), iteration, strategy, tokensBefore, tokens(), results));
    }

    @Override
    public void budgetWarning(String budget, long used, long limit, String text, String strategy) {
        long before = tokens();
        note(text, strategy);
        run.emit(new AgentEvent.BudgetWarning(run.source(), iteration, budget, used, limit, before, tokens()));
    }

    @Override
    public <T> T state(ContextStrategy owner, Supplier<T> initial) {
        return manager.state(owner, initial);
    }
}
