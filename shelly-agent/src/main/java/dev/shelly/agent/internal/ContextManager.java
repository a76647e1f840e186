package dev.shelly.agent.internal;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.context.ContextPolicy;
import dev.shelly.agent.context.ContextStrategy;
import dev.shelly.agent.context.ContextView;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * An agent's context management: builds the model's view of its chat before every call (the
 * prompt, the agent's latest summary, the conversation since), runs the policy's strategies on
 * it, and keeps the token account (the provider's count for the last call plus an estimate of
 * what changed since; the estimate alone when the provider's count is missing or below half the
 * estimate).
 *
 * <p>It acts, like a model-call hook, before the agent's hooks see the request, and on the view
 * only: what reaches the chat are the summaries and notes the strategies add, each marked in its
 * metadata, so a saved session resumes from the same view. It is the state of one agent on one
 * conversation, which one run at a time uses: not thread-safe.
 */
public final class ContextManager {
    final AgentSpec agent;
    /** The conversation's chat this state belongs to. */
    private final Chat chat;
    /** How far the chat was searched for this agent's summary. */
    private int scanned;
    /** Whether the chat searched so far holds a summary, of any agent. */
    private boolean anySummary;
    /** The state of shaped views, made when the first view is shaped or the first summary found. */
    private Views views;

    /**
     * The context management of an agent on a conversation, made at the agent's first run on it.
     *
     * @param agent the agent
     * @param chat the conversation's chat
     */
    public ContextManager(AgentSpec agent, Chat chat) {
        this.agent = agent;
        this.chat = chat;
    }

    /** {@return the agent's context policy} Read from the agent, so that this state keeps fewer fields. */
    ContextPolicy policy() {
        return agent.contextPolicy();
    }

    /**
     * Whether the agent's policy manages anything.
     *
     * @return true when it has strategies
     */
    public boolean active() {
        return policy().active();
    }

    /**
     * The model's messages for one call when there is nothing to shape: no strategy, and no
     * summary in the chat to resume from. They are then the chat as it is, after the prompt when
     * the chat does not open with it, taken in one copy.
     *
     * @param prompt the system prompt when the chat does not open with it, else null
     * @return the messages, or null when the call needs its {@link #view}
     */
    public List<Message> plain(Message prompt) {
        if (policy().active() || anySummary) {
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
     * @param run the run the call is of
     * @param iteration the call's iteration in the run, from 1
     * @param prompt the system prompt when the chat does not open with it, else null
     * @param offered the tools offered
     * @return the view
     */
    public CallView view(ContextRun run, int iteration, Message prompt, List<ToolDefinition> offered) {
        Views v = v();
        if (v.stateRun != run) {
            v.stateRun = run;
            if (v.state != null) {
                v.state.clear();
            }
            account().startRun();
            v.last = null;
            v.replacer = null;
            v.manyReplacers = false;
            v.overflow = null;
        }
        findSummary(chat.since(scanned));
        Message head = prompt != null ? prompt : chat.get(0);
        CallView view = extendable(head, chat) ? v.last.next(iteration, offered, v.lastChatSize)
                : build(run, iteration, prompt, offered);
        v.last = null;
        List<Message> rest = chat.since(view.chatSize);
        for (int i = 0; i < rest.size(); i++) {
            Message m = rest.get(i);
            if (!isSummary(m)) {
                view.add(m, view.chatSize + i);
            }
        }
        if (policy().active()) {
            v.compacted = false;
            try {
                for (ContextStrategy s : policy().strategies()) {
                    v.applying = s;
                    s.apply(view);
                }
            } finally {
                v.applying = null;
            }
            if (v.overflow != null && view.tokens() >= v.overflowTokens) {
                throw advised(v.overflow, "the context policy of agent '" + agent.name() + "' " + strategyNames()
                        + " made no room for the request to fit; add ContextStrategy.compaction (config: "
                        + "compaction) or ContextStrategy.trimToolResults (config: trim_tool_results) to its policy, or shorten the input");
            }
            run.emit(new AgentEvent.ContextMeasured(run.source(), iteration, view.tokens(), view.window().orElse(0)));
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
    public void overflowed(ModelException e, CallView sent) {
        if (!policy().active()) {
            throw advised(e, "agent '" + agent.name() + "' has no context policy to make room; give it one that "
                    + "compacts, ContextPolicy.builder().strategies(ContextStrategy.compaction()).build() (config: "
                    + "context: {compaction: {}}), and it compacts and tries again");
        }
        Views v = v();
        if (v.overflow != null || sent == null) {
            throw advised(e, v.overflow != null
                    ? "agent '" + agent.name() + "' made room once with its context policy " + strategyNames()
                            + " and the request still does not fit; lower the compaction's keep_recent or threshold, "
                            + "trim tool results, or shorten the input"
                    : "agent '" + agent.name() + "' did not retry: a model-call hook rewrote the request, so its "
                            + "context policy cannot shape it");
        }
        v.overflowTokens = account().refused(e, sent);
        v.overflow = e;
        v.last = null;
    }

    /** The strategies' names, for messages: {@code (compaction, trim_tool_results)}. */
    private String strategyNames() {
        List<String> names = new ArrayList<>();
        for (ContextStrategy s : policy().strategies()) {
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
        Views v = v();
        if (v.last == null || v.manyReplacers || (v.replacer != null && v.replacer != v.firstReplacer())
                || v.last.messages.get(0) != head || v.lastSummary != v.summary) {
            return false;
        }
        int size = chat.size();
        return size >= v.lastChatSize && (v.lastChatSize == 0 || chat.get(v.lastChatSize - 1) == v.lastTail);
    }

    /** The view from the chat: the prompt, this agent's summary and the conversation since. */
    private CallView build(ContextRun run, int iteration, Message prompt, List<ToolDefinition> offered) {
        Views v = v();
        CallView view = new CallView(this, run, iteration, offered);
        int base;
        if (prompt == null) {
            view.add(chat.get(0), 0);
            base = 1;
        } else {
            view.add(prompt, -1);
            base = 0;
        }
        int start = base;
        if (v.summary != null) {
            view.add(v.summary, v.summaryIndex);
            start = Math.max(base, v.resumeFrom);
        }
        view.first = view.messages.size();
        view.chatSize = start;
        return view;
    }

    /** Keeps a shaped view for the next call to extend, unless it was compacted. */
    private void keep(CallView view, Chat chat) {
        Views v = v();
        if (v.compacted || v.manyReplacers) {
            v.last = null;
            return;
        }
        v.last = view;
        v.lastChatSize = chat.size();
        v.lastTail = v.lastChatSize == 0 ? null : chat.get(v.lastChatSize - 1);
        v.lastSummary = v.summary;
    }

    /**
     * Takes the provider's count for the request that was sent.
     *
     * @param sent the request as it reached the completer
     * @param response the model's response
     * @param view the view the request was built from, or null when hooks rewrote the request
     */
    public void measured(ModelRequest sent, ModelResponse response, CallView view) {
        v().overflow = null;
        account().measured(sent, response, view);
    }

    /** The token account, made on first use. */
    TokenAccount account() {
        Views v = v();
        if (v.account == null) {
            v.account = new TokenAccount(agent.name(), agent.completer(), policy());
        }
        return v.account;
    }

    /** Notes that the strategy being applied replaced a message of the view. */
    void replaced() {
        Views v = v();
        if (v.applying != null && v.applying != v.replacer) {
            v.manyReplacers |= v.replacer != null;
            v.replacer = v.applying;
        }
    }

    /** Notes that a strategy compacted the view: the summary it wrote and where the view now resumes. */
    void compacted(Message written, int index, int resumeAt) {
        Views v = v();
        v.summary = written;
        v.summaryIndex = index;
        v.resumeFrom = resumeAt;
        v.compacted = true;
    }

    /** What a strategy remembers during the run, made on first use. */
    @SuppressWarnings("unchecked")
    <T> T state(ContextStrategy owner, Supplier<T> initial) {
        Views v = v();
        if (v.state == null) {
            v.state = new IdentityHashMap<>();
        }
        Object known = v.state.get(owner);
        if (known == null) {
            known = initial.get();
            v.state.put(owner, known);
        }
        return (T) known;
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
                Views v = v();
                v.summaryIndex = scanned + i;
                v.summary = m;
                v.resumeFrom = from.intValue();
            }
        }
        scanned += fresh.size();
    }

    static boolean isSummary(Message m) {
        return ContextPolicy.SUMMARY.equals(m.metadata().get(ContextPolicy.KIND));
    }

    /** The views' state, made on first use. */
    private Views v() {
        Views known = views;
        if (known == null) {
            known = new Views();
            views = known;
        }
        return known;
    }

    /** Whether the view being shaped retries a request the model refused as too long. */
    boolean overflowing() {
        return views != null && views.overflow != null;
    }

    /**
     * What shaping views keeps between calls: a conversation whose agent has no policy and whose
     * chat holds no summary never makes it.
     */
    private final class Views {
        /** {@link #firstReplacer()}, once asked for. */
        private ContextStrategy firstReplacer;
        private boolean replacerFound;

        /** The first strategy in the policy that may replace messages ({@link ContextStrategy#replacesMessages}), or null. */
        ContextStrategy firstReplacer() {
            if (!replacerFound) {
                for (ContextStrategy s : policy().strategies()) {
                    if (s.replacesMessages()) {
                        firstReplacer = s;
                        break;
                    }
                }
                replacerFound = true;
            }
            return firstReplacer;
        }

        /** The token account, made when the first view is shaped: a conversation that only passes its chat on has none. */
        TokenAccount account;
        /** The chat index of this agent's latest summary, or -1. */
        int summaryIndex = -1;
        Message summary;
        int resumeFrom;
        ContextRun stateRun;
        /** What the strategies remember during the run; made when a strategy first asks. */
        Map<ContextStrategy, Object> state;
        /**
         * The previous call's view after its strategies, which the next call extends with what the
         * chat gained since; null when there is none to extend (a new run, a compaction).
         */
        CallView last;
        /** The chat's size and last message when {@link #last} was shaped. */
        int lastChatSize;
        Message lastTail;
        /** The summary {@link #last} was built on. */
        Message lastSummary;
        /** The strategy being applied, and the one that replaced messages in this run, if any. */
        ContextStrategy applying;
        ContextStrategy replacer;
        /**
         * Whether more than one strategy replaced messages in this run: a strategy then rewrites
         * another's rewrite, so each view is built from the chat again to keep the order.
         */
        boolean manyReplacers;
        /** Whether the view being shaped was compacted. */
        boolean compacted;
        /**
         * The context overflow the previous request was refused with, while the view is shaped again
         * to retry it; null otherwise.
         */
        ModelException overflow;
        /** The size of the refused request, which the view shaped again must be below. */
        long overflowTokens;
    }
}
