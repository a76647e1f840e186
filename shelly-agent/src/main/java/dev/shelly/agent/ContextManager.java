package dev.shelly.agent;

import dev.shelly.agent.context.Budget;
import dev.shelly.agent.context.Compaction;
import dev.shelly.agent.context.ContextPolicy;
import dev.shelly.agent.context.ContextStrategy;
import dev.shelly.agent.context.ContextView;
import dev.shelly.agent.context.FailureReflection;
import dev.shelly.agent.context.LoopDetection;
import dev.shelly.agent.context.SlidingWindow;
import dev.shelly.agent.context.ToolScope;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTable.ContextWindow;
import dev.shelly.modeladapter.ModelTarget;
import dev.shelly.modeladapter.TokenEstimator;
import dev.shelly.modeladapter.Usage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An agent's context management: builds the model's view of its chat before every call (the
 * prompt, the agent's latest summary, the conversation since), runs the policy's strategies on
 * it, and keeps the token account (the provider's count for the last call plus an estimate of
 * what changed since; the estimate alone when the provider's count is missing or below half the
 * estimate).
 *
 * <p>It acts, like a model-call hook, before the agent's hooks see the request, and on the view
 * only: what reaches the chat are the summaries and notes the strategies add, each marked in its
 * metadata, so a saved session resumes from the same view. Belongs to one agent, which runs one
 * run at a time: not thread-safe.
 */
final class ContextManager {
    private static final Logger LOG = LoggerFactory.getLogger(ContextManager.class);
    /** Each message is cut to this many characters in what the summariser reads. */
    static final int SUMMARY_PIECE_CHARS = 2_000;
    /** What the summariser reads at most when the window is unknown. */
    private static final int SUMMARY_INPUT_CHARS = 400_000;

    private final Agent agent;
    /** The conversation's chat this state belongs to. */
    private final Chat chat;
    private final ContextPolicy policy;
    private final TokenEstimator estimator;
    /**
     * Estimates of the messages of this run's views, by identity (a chat never changes a
     * message, and strategies reuse what they rewrote); cleared when a run starts.
     */
    private Map<Message, Long> estimates;
    /** How far the chat was searched for this agent's summary. */
    private int scanned;
    /** Whether the chat searched so far holds a summary, of any agent. */
    private boolean anySummary;
    /** The chat index of this agent's latest summary, or -1. */
    private int summaryIndex = -1;
    private Message summary;
    private int resumeFrom;
    /** The input tokens the provider reported for the last call, or -1. */
    private long reported = -1;
    /** The estimate of the request those tokens were reported for. */
    private long reportedEstimate;
    /** Whether this agent's completer was found to report no count, or too low a count; logged once. */
    private boolean distrusted;
    private String model;
    private Run stateRun;
    /** What the strategies remember during the run; made when a strategy first asks. */
    private Map<ContextStrategy, Object> state;
    /**
     * The previous call's view after its strategies, which the next call extends with what the
     * chat gained since; null when there is none to extend (a new run, a compaction).
     */
    private View last;
    /** The chat's size and last message when {@link #last} was shaped. */
    private int lastChatSize;
    private Message lastTail;
    /** The summary {@link #last} was built on. */
    private Message lastSummary;
    /** The strategy being applied, and the one that replaced messages in this run, if any. */
    private ContextStrategy applying;
    private ContextStrategy replacer;
    /**
     * Whether more than one strategy replaced messages in this run: a strategy then rewrites
     * another's rewrite, so each view is built from the chat again to keep the order.
     */
    private boolean manyReplacers;
    /** Whether the view being shaped was compacted. */
    private boolean compacted;
    /** The first strategy in the policy that may replace messages (not one known not to), or null. */
    private final ContextStrategy firstReplacer;
    /**
     * The context overflow the previous request was refused with, while the view is shaped again
     * to retry it; null otherwise.
     */
    private ModelException overflow;
    /** The size of the refused request, which the view shaped again must be below. */
    private long overflowTokens;
    /**
     * The window a refusal revealed: the one the provider named, else at most the refused
     * request's size; 0 until a request is refused. It stays for the agent's later calls.
     */
    private long learnedWindow;

    ContextManager(Agent agent, ContextPolicy policy, Chat chat) {
        this.agent = agent;
        this.chat = chat;
        this.policy = policy;
        this.estimator = policy.estimator();
        ContextStrategy found = null;
        for (ContextStrategy s : policy.strategies()) {
            if (!(s instanceof Compaction || s instanceof SlidingWindow || s instanceof LoopDetection
                    || s instanceof FailureReflection || s instanceof Budget || s instanceof ToolScope)) {
                found = s;
                break;
            }
        }
        this.firstReplacer = found;
    }

    boolean active() {
        return policy.active();
    }

    /**
     * The model's messages for one call when there is nothing to shape: no strategy, and no
     * summary in the chat to resume from. They are then the chat as it is, after the prompt when
     * the chat does not open with it, taken in one copy.
     *
     * @param prompt the system prompt when the chat does not open with it, else null
     * @return the messages, or null when the call needs its {@link #view}
     */
    List<Message> plain(Message prompt) {
        if (policy.active() || anySummary) {
            return null;
        }
        List<Message> all = chat.messages();
        if (all.size() > scanned) {
            findSummary(all.subList(scanned, all.size()));
            if (anySummary) {
                return null;
            }
        }
        if (prompt == null) {
            return all;
        }
        Message[] withPrompt = new Message[all.size() + 1];
        withPrompt[0] = prompt;
        for (int i = 0; i < all.size(); i++) {
            withPrompt[i + 1] = all.get(i);
        }
        return List.of(withPrompt);
    }

    /**
     * The model's view for one call, shaped by the strategies.
     *
     * @param prompt the system prompt when the chat does not open with it, else null
     */
    View view(Run run, int iteration, Message prompt, List<ToolDefinition> offered) {
        if (stateRun != run) {
            stateRun = run;
            if (state != null) {
                state.clear();
            }
            if (estimates == null) {
                estimates = new IdentityHashMap<>();
            } else if (!estimates.isEmpty()) {
                estimates.clear();
            }
            last = null;
            replacer = null;
            manyReplacers = false;
            overflow = null;
        }
        findSummary(chat.since(scanned));
        Message head = prompt != null ? prompt : chat.get(0);
        View view = extendable(head, chat) ? last.next(iteration, offered) : build(run, iteration, prompt, offered);
        last = null;
        List<Message> rest = chat.since(view.chatSize);
        for (int i = 0; i < rest.size(); i++) {
            Message m = rest.get(i);
            if (!isSummary(m)) {
                view.add(m, view.chatSize + i);
            }
        }
        if (policy.active()) {
            compacted = false;
            try {
                for (ContextStrategy s : policy.strategies()) {
                    applying = s;
                    s.apply(view);
                }
            } finally {
                applying = null;
            }
            if (overflow != null && view.tokens() >= overflowTokens) {
                throw advised(overflow, "the context policy of agent '" + agent.name() + "' " + strategyNames()
                        + " made no room for the request to fit; add Compaction (config: compaction) or "
                        + "ToolResultTrimming (config: trim_tool_results) to its policy, or shorten the input");
            }
            run.emit(new AgentEvent.ContextMeasured(run.source, iteration, view.tokens(), view.window().orElse(0)));
            keep(view, chat);
        }
        return view;
    }

    /**
     * Takes the model's refusal of a request as longer than its context window. With a policy,
     * the next view is shaped again once, with {@link ContextView#overflowed()} true and the
     * window the refusal revealed, so the strategies make room and the call is tried again.
     *
     * @param e the context overflow
     * @param sent the view the refused request was built from, or null when hooks rewrote it
     * @throws ModelException the overflow, with advice, when nothing can be done: the agent has
     *     no context policy, or its view was shaped again already
     */
    void overflowed(ModelException e, View sent) {
        if (!policy.active()) {
            throw advised(e, "agent '" + agent.name() + "' has no context policy to make room; give it one that "
                    + "compacts, ContextPolicy.builder().strategies(Compaction.defaults()).build() (config: "
                    + "context: {compaction: {}}), and it compacts and tries again");
        }
        if (overflow != null || sent == null) {
            throw advised(e, overflow != null
                    ? "agent '" + agent.name() + "' made room once with its context policy " + strategyNames()
                            + " and the request still does not fit; lower the compaction's keep_recent or threshold, "
                            + "trim tool results, or shorten the input"
                    : "agent '" + agent.name() + "' did not retry: a model-call hook rewrote the request, so its "
                            + "context policy cannot shape it");
        }
        long estimated = sent.estimated();
        if (e.requestTokens().isPresent()) {
            reported = e.requestTokens().getAsLong();
            reportedEstimate = estimated;
        }
        long size = sent.tokens();
        // The provider's window, else the refused request's size: the window is below it.
        long revealed = e.contextWindow().orElse(Math.max(1, size - 1));
        learnedWindow = learnedWindow > 0 ? Math.min(learnedWindow, revealed) : revealed;
        overflow = e;
        overflowTokens = size;
        last = null;
    }

    /** The strategies' names, for messages: {@code (compaction, trim_tool_results)}. */
    private String strategyNames() {
        List<String> names = new ArrayList<>();
        for (ContextStrategy s : policy.strategies()) {
            names.add(s.name());
        }
        return "(" + String.join(", ", names) + ")";
    }

    /** The failure with advice ending its message; its cause, stack trace and other facts kept. */
    static ModelException advised(ModelException e, String advice) {
        ModelException copy = e.toBuilder().advice(advice).cause(e.getCause()).build();
        copy.setStackTrace(e.getStackTrace());
        for (Throwable s : e.getSuppressed()) {
            copy.addSuppressed(s);
        }
        return copy;
    }

    /**
     * Whether the previous call's view can be extended: the same prompt and summary, and a chat
     * that only grew since (its last message then is still where it was); and no strategy that
     * comes before the one that rewrote messages may rewrite one too, since it would then read
     * the other's rewrite instead of the chat's message.
     */
    private boolean extendable(Message head, Chat chat) {
        if (last == null || manyReplacers || (replacer != null && replacer != firstReplacer)
                || last.messages.get(0) != head || lastSummary != summary) {
            return false;
        }
        int size = chat.size();
        return size >= lastChatSize && (lastChatSize == 0 || chat.get(lastChatSize - 1) == lastTail);
    }

    /** The view from the chat: the prompt, this agent's summary and the conversation since. */
    private View build(Run run, int iteration, Message prompt, List<ToolDefinition> offered) {
        View view = new View(run, iteration, offered);
        int base;
        if (prompt == null) {
            view.add(chat.get(0), 0);
            base = 1;
        } else {
            view.add(prompt, -1);
            base = 0;
        }
        int start = base;
        if (summary != null) {
            view.add(summary, summaryIndex);
            start = Math.max(base, resumeFrom);
        }
        view.first = view.messages.size();
        view.chatSize = start;
        return view;
    }

    /** Keeps a shaped view for the next call to extend, unless it was compacted. */
    private void keep(View view, Chat chat) {
        if (compacted || manyReplacers) {
            last = null;
            return;
        }
        last = view;
        lastChatSize = chat.size();
        lastTail = lastChatSize == 0 ? null : chat.get(lastChatSize - 1);
        lastSummary = summary;
    }

    /**
     * Takes the provider's count for the request that was sent.
     *
     * @param view the view the request was built from, or null when hooks rewrote the request
     */
    void measured(ModelRequest sent, ModelResponse response, View view) {
        overflow = null;
        if (response.model() != null) {
            model = response.model();
        }
        long input = response.usage().totalInputTokens();
        long estimate = view != null ? view.estimated() : estimate(sent.messages(), sent.tools());
        // Several OpenAI-compatible servers report 0, nothing, or only part of the prompt: a count
        // below half of the estimate is not the request's size, and trusting it would let the
        // context grow past the window without a compaction. The estimate stands in for it.
        if (input > 0 && input >= estimate / 2) {
            reported = input;
            reportedEstimate = estimate;
            return;
        }
        reported = -1;
        if (!distrusted) {
            distrusted = true;
            LOG.debug("agent '{}': {} reported {} input tokens for a request estimated at {}; counting the context by "
                    + "the estimate while the reported count is missing or below half of it", agent.name(),
                    describe(agent.completer().target()), input > 0 ? input : "no", estimate);
        }
    }

    private static String describe(ModelTarget target) {
        return target.provider() == null ? "the completer" : target.provider()
                + (target.model() == null ? "" : " (" + target.model() + ")");
    }

    private long estimate(List<Message> messages, List<ToolDefinition> tools) {
        long sum = 3 + estimator.tools(tools);
        for (Message m : messages) {
            sum += tokens(m);
        }
        return sum;
    }

    private long tokens(Message m) {
        Long known = estimates.get(m);
        return known != null ? known : estimator.message(m);
    }

    private long remember(Message m) {
        return estimates.computeIfAbsent(m, estimator::message);
    }

    private OptionalInt window() {
        OptionalInt known;
        if (policy.window().isPresent()) {
            known = policy.window();
        } else {
            Optional<ContextWindow> found = policy.windows().window(model);
            known = found.isPresent() ? OptionalInt.of(found.get().tokens()) : OptionalInt.empty();
        }
        if (learnedWindow > 0 && (known.isEmpty() || learnedWindow < known.getAsInt())) {
            return OptionalInt.of((int) Math.min(Integer.MAX_VALUE, learnedWindow));
        }
        return known;
    }

    /**
     * Finds this agent's latest summary in what the chat gained since the last look.
     *
     * @param fresh the chat's messages from index {@link #scanned} on
     */
    private void findSummary(List<Message> fresh) {
        for (int i = 0; i < fresh.size(); i++) {
            Message m = fresh.get(i);
            if (!isSummary(m)) {
                continue;
            }
            anySummary = true;
            if (agent.name().equals(m.metadata().get(ContextPolicy.AGENT))
                    && m.metadata().get(ContextPolicy.FROM) instanceof Number from) {
                summaryIndex = scanned + i;
                summary = m;
                resumeFrom = from.intValue();
            }
        }
        scanned += fresh.size();
    }

    static boolean isSummary(Message m) {
        return ContextPolicy.SUMMARY.equals(m.metadata().get(ContextPolicy.KIND));
    }

    /** The text the summariser reads for some messages: one line or block per message. */
    static String transcript(List<Message> messages, int maxChars) {
        StringBuilder sb = new StringBuilder();
        Map<String, String> names = new LinkedHashMap<>();
        for (Message m : messages) {
            for (Part p : m.parts()) {
                switch (p) {
                    case Text t when !t.text().isBlank() -> line(sb, "[" + m.sender() + "] ", t.text());
                    case Thinking t -> { }
                    case ToolCall c -> {
                        names.put(c.id(), c.name());
                        line(sb, "[" + m.sender() + " calls " + c.name() + "] ", c.arguments());
                    }
                    case ToolResult r -> line(sb, "[" + (r.isError() ? "error from " : "result of ")
                            + names.getOrDefault(r.toolCallId(), r.toolCallId()) + "] ", r.text());
                    default -> { }
                }
            }
        }
        if (sb.length() > maxChars) {
            return "[... " + (sb.length() - maxChars) + " earlier characters left out]\n" + sb.substring(sb.length() - maxChars);
        }
        return sb.toString();
    }

    private static void line(StringBuilder sb, String head, String text) {
        String body = text.strip();
        if (body.length() > SUMMARY_PIECE_CHARS) {
            body = body.substring(0, SUMMARY_PIECE_CHARS) + " [... " + (body.length() - SUMMARY_PIECE_CHARS) + " more characters]";
        }
        sb.append(head).append(body).append('\n');
    }

    /** The view of one call. */
    final class View implements ContextView {
        private final Run run;
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

        View(Run run, int iteration, List<ToolDefinition> offered) {
            this.run = run;
            this.iteration = iteration;
            this.tools = offered;
            this.offered = offered;
        }

        /** A copy of this shaped view for the next call, with the tools offered then. */
        View next(int nextIteration, List<ToolDefinition> nextOffered) {
            View view = new View(run, nextIteration, nextOffered);
            view.messages.addAll(messages);
            view.chatIndex = java.util.Arrays.copyOf(chatIndex, Math.max(64, chatIndex.length));
            view.first = first;
            view.estimate = estimate;
            view.chatSize = lastChatSize;
            view.carried = messages.size();
            if (nextOffered == tools) {
                view.toolsEstimate = toolsEstimate;
            }
            return view;
        }

        void add(Message m, int index) {
            if (messages.size() == chatIndex.length) {
                chatIndex = java.util.Arrays.copyOf(chatIndex, chatIndex.length * 2);
            }
            chatIndex[messages.size()] = index;
            messages.add(m);
            if (policy.active()) {
                estimate += index >= 0 ? remember(m) : tokens(m);
            }
        }

        /** Whether a strategy changed the tools offered. */
        boolean scoped() {
            return tools != offered;
        }

        List<ToolDefinition> toolList() {
            return tools;
        }

        List<Message> list() {
            return Collections.unmodifiableList(messages);
        }

        @Override
        public String agent() {
            return agent.name();
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
            estimate += remember(message) - tokens(old);
            messages.set(index, message);
            if (applying != null && applying != replacer) {
                manyReplacers |= replacer != null;
                replacer = applying;
            }
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
            if (first < 2 || !isSummary(messages.get(1))) {
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
            return overflow != null;
        }

        /** The estimate of the request as the view stands, without the provider's count. */
        long estimated() {
            if (toolsEstimate < 0) {
                toolsEstimate = estimator.tools(tools);
            }
            return estimate + 3 + toolsEstimate;
        }

        @Override
        public long tokens() {
            long now = estimated();
            return reported >= 0 ? Math.max(1, reported + now - reportedEstimate) : now;
        }

        @Override
        public long tokens(Message message) {
            return ContextManager.this.tokens(message);
        }

        @Override
        public OptionalInt window() {
            return ContextManager.this.window();
        }

        @Override
        public Usage usage() {
            return run.context.usage();
        }

        @Override
        public Duration elapsed() {
            return Run.since(run.startNanos);
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
            String text = transcript(older, cap);
            String ask = previous == null ? "Messages to summarise:\n\n" + text
                    : "Previous summary:\n\n" + previous + "\n\nMessages to add to it:\n\n" + text;
            Completer model = completer != null ? completer : policy.summarizer().orElse(agent.completer());
            ModelRequest request = new ModelRequest(List.of(Message.system(instructions), Message.user(ask)), List.of(),
                    ModelOptions.NONE, null);
            ModelResponse response = model.complete(request);
            if (response == null) {
                throw new AgentException(agent.name(), "the summariser of agent '" + agent.name()
                        + "' returned null instead of a response", null);
            }
            Usage usage = response.usage();
            run.context.record(usage, usage.equals(Usage.ZERO) ? Cost.ZERO : agent.prices().cost(response.model(), usage));
            String written = response.message().text().strip();
            if (written.isEmpty()) {
                throw new AgentException(agent.name(), "the summariser of agent '" + agent.name()
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
            meta.put(ContextPolicy.AGENT, agent.name());
            meta.put(ContextPolicy.STRATEGY, strategy);
            Message written = new Message(ContextPolicy.SENDER, Role.USER,
                    List.of(new Text(ContextPolicy.SUMMARY_HEADING + text.strip())), meta);
            int index = run.append(written);
            List<Message> keptMessages = new ArrayList<>(messages.subList(from, messages.size()));
            int[] keptIndex = java.util.Arrays.copyOfRange(chatIndex, from, messages.size());
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
            summary = written;
            summaryIndex = index;
            resumeFrom = keptIndex[0];
            compacted = true;
            run.emit(new AgentEvent.ContextCompacted(run.source, iteration, strategy, before, tokens(), replaced));
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
            run.emit(new AgentEvent.ContextTrimmed(run.source, iteration, strategy, tokensBefore, tokens(), results));
        }

        @Override
        public void budgetWarning(String budget, long used, long limit, String text, String strategy) {
            long before = tokens();
            note(text, strategy);
            run.emit(new AgentEvent.BudgetWarning(run.source, iteration, budget, used, limit, before, tokens()));
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T state(ContextStrategy owner, Supplier<T> initial) {
            if (ContextManager.this.state == null) {
                ContextManager.this.state = new IdentityHashMap<>();
            }
            Object known = ContextManager.this.state.get(owner);
            if (known == null) {
                known = initial.get();
                ContextManager.this.state.put(owner, known);
            }
            return (T) known;
        }
    }
}
