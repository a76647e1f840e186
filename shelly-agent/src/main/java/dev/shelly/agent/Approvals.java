package dev.shelly.agent;

import dev.shelly.chats.Message;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import tools.jackson.databind.json.JsonMapper;

/**
 * The human in the loop of one conversation: the {@linkplain ToolPolicy tool policies} of its
 * agents, the calls waiting for a decision, the answers given, and the decisions remembered
 * "always".
 *
 * <p>Put it in the run's scope ({@link RunContext.Builder#approvals}); it then decides about
 * every tool call of every agent of the run, delegated children included, after the
 * {@linkplain RunInterceptor#decideToolCall links of the interception chain}:
 * <ul>
 *   <li>A call the agent's policy allows runs; one it denies is answered
 *       {@code tool 'x' was not run: the tool policy of agent 'a' does not allow it}.
 *   <li>A call it asks about runs when an "always" decision allows it (this session's, then the
 *       {@link PermissionStore}'s); otherwise the call waits: the run goes on with the turn's
 *       other calls, keeps their results, and then stops with a {@link RunPausedException};
 *       {@link #pending()} lists the waiting calls and each is announced as an
 *       {@link AgentEvent.DecisionNeeded}.
 *   <li>{@link #answer} decides about a waiting call. The next run on the same chat (with the
 *       same approvals) goes on where the turn stopped: calls that ran keep their results,
 *       answered calls run or are refused, and one tool message answers every call of the turn
 *       in call order. A call still unanswered waits again.
 * </ul>
 *
 * <p><b>Delegation.</b> A delegated child whose call waits stops too, after its siblings have
 * finished or stopped; its chat and its siblings' answers are kept here, the parent's
 * {@code delegate} call waits with it, and the waiting call reaches the top of the tree under an
 * id naming its path ({@code call_2/0/call_1}). Answering it resumes the child on its kept chat.
 *
 * <p><b>Durability.</b> {@link #state()} is everything a paused conversation waits for; the
 * engine saves it with the session and {@link #restore}s it in a fresh process.
 *
 * <p><b>Timeouts.</b> With a {@linkplain Builder#timeout timeout}, {@link #expired} lists the calls
 * that waited longer; the engine then denies them or cancels the turn
 * ({@link OnTimeout}).
 *
 * <p>Safe for use by many threads.
 */
public final class Approvals {
    static final JsonMapper JSON = JsonMapper.builder().build();

    /** What happens to a call that waited longer than the timeout. */
    public enum OnTimeout {
        /** The call is denied, and the run goes on. */
        DENY,
        /** The paused turn is cancelled: every waiting call is answered as not run. */
        CANCEL
    }

    /**
     * One paused run of the tree.
     *
     * @param path where the run stands in the delegation tree: {@code ""} for the top run, else
     *     the parent's path, the {@code delegate} call's id and the task's index, joined by
     *     {@code /}
     * @param agent the run's agent
     * @param chat the run's chat for a delegated child (empty for the top run, whose chat is the
     *     session's)
     * @param held the results of the paused turn's calls that already ran or were refused
     * @param pending the turn's calls waiting for a decision
     * @param delegated the turn's calls that were decided and ran, and wait for a delegated
     *     child: as they ran (with an edit's arguments); they run again, undecided, to resume it
     * @param finished for a delegated child that finished while a sibling paused: its answer;
     *     else null
     */
    public record Frame(String path, String agent, List<Message> chat, List<ToolResult> held,
            List<PendingCall> pending, List<ToolCall> delegated, String finished) {
        /** Validates and copies. */
        public Frame {
            if (path == null || agent == null || agent.isBlank()) {
                throw new IllegalArgumentException("Approvals.Frame path and agent must not be null");
            }
            chat = chat == null ? List.of() : List.copyOf(chat);
            held = held == null ? List.of() : List.copyOf(held);
            pending = pending == null ? List.of() : List.copyOf(pending);
            delegated = delegated == null ? List.of() : List.copyOf(delegated);
        }
    }

    /**
     * A decision remembered for the rest of a session.
     *
     * @param agent the agent
     * @param tool the exact tool name
     * @param permission allow or deny
     */
    public record Grant(String agent, String tool, ToolPolicy.Permission permission) {
        /** Validates the fields. */
        public Grant {
            if (agent == null || tool == null || permission == null || permission == ToolPolicy.Permission.ASK) {
                throw new IllegalArgumentException("Approvals.Grant needs an agent, a tool and ALLOW or DENY");
            }
        }
    }

    /**
     * What a paused conversation waits for: saved with its session.
     *
     * @param frames the paused runs of the tree, children before their parents
     * @param answers the answers given to calls that have not run yet, by pending id
     * @param sessionGrants the decisions remembered for the session
     */
    public record State(List<Frame> frames, Map<String, Answer> answers, List<Grant> sessionGrants) {
        /** Nothing paused, nothing answered, nothing remembered. */
        public static final State EMPTY = new State(List.of(), Map.of(), List.of());

        /** Validates and copies. */
        public State {
            frames = frames == null ? List.of() : List.copyOf(frames);
            answers = answers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(answers));
            sessionGrants = sessionGrants == null ? List.of() : List.copyOf(sessionGrants);
        }

        /**
         * Whether there is nothing to keep.
         *
         * @return true when no run waits, no answer is kept and nothing is remembered
         */
        public boolean isEmpty() {
            return frames.isEmpty() && answers.isEmpty() && sessionGrants.isEmpty();
        }
    }

    private final Map<String, ToolPolicy> policies;
    private final ToolPolicy defaultPolicy;
    private final PermissionStore permissions;
    private final Duration timeout;
    private final OnTimeout onTimeout;
    private final Clock clock;
    /** The paused runs, answers, session decisions and live questions, under one lock. */
    private final ApprovalDesk desk = new ApprovalDesk();

    private Approvals(Builder b) {
        this.policies = Map.copyOf(b.policies);
        this.defaultPolicy = b.defaultPolicy;
        this.permissions = b.permissions;
        this.timeout = b.timeout;
        this.onTimeout = b.onTimeout;
        this.clock = b.clock;
    }

    /**
     * Starts building approvals.
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The policy of an agent: its own, else the default.
     *
     * @param agent the agent's name
     * @return the policy
     */
    public ToolPolicy policy(String agent) {
        return policies.getOrDefault(agent, defaultPolicy);
    }

    /**
     * How long a call may wait for a decision.
     *
     * @return the timeout, or empty when calls wait for ever
     */
    public Optional<Duration> timeout() {
        return Optional.ofNullable(timeout);
    }

    /**
     * What happens to a call that waited longer than the timeout.
     *
     * @return the action
     */
    public OnTimeout onTimeout() {
        return onTimeout;
    }

    /**
     * Whether a run waits for a decision.
     *
     * @return true when some run of the tree is paused
     */
    public boolean paused() {
        return desk.paused();
    }

    /**
     * The calls waiting for a decision, answered ones included until they run, children's before
     * their parents', each run's in call order.
     *
     * @return the calls
     */
    public List<PendingCall> pending() {
        return desk.pending();
    }

    /**
     * The calls still waiting for an answer.
     *
     * @return the calls without an answer, in the order of {@link #pending()}
     */
    public List<PendingCall> unanswered() {
        return desk.unanswered();
    }

    /**
     * Decides about a waiting call. The call runs (or is refused) when the paused run goes on.
     * An "always" answer is remembered for the agent and tool at once: for the session here, for
     * the project in the {@link PermissionStore}.
     *
     * @param id the {@linkplain PendingCall#id() id} of a waiting call
     * @param answer the answer: for an approval, approve, deny or edit; for a question, reply or
     *     deny
     * @throws IllegalArgumentException naming the waiting calls when no call of that id waits, or
     *     when the answer does not fit the call
     * @throws IllegalStateException when the call was answered already, or a project answer is
     *     given without a permission store
     */
    public void answer(String id, Answer answer) {
        if (answer == null) {
            throw new IllegalArgumentException("the answer to pending call '" + id + "' must not be null");
        }
        desk.answer(id, answer, permissions);
    }

    /**
     * Asks the person a question while a tool runs, and waits for the answer: what an MCP
     * server's elicitation becomes. The question waits in {@link #pending()} as a
     * {@link PendingCall.Kind#QUESTION} of an {@code ask_user} call (id {@code ask-1},
     * {@code ask-2}, ...), without pausing the run; {@link #answer} with {@link Answer#reply} or
     * {@link Answer#deny} ends the wait.
     *
     * @param agent the agent whose tool asks
     * @param question the question, complete and self-contained
     * @param timeout how long to wait
     * @param announce told the waiting question once it is in {@link #pending()}, e.g. to announce
     *     it as an {@link AgentEvent.DecisionNeeded}
     * @return the answer: a reply, or a deny (also when nobody answered in time)
     * @throws InterruptedException when the waiting thread is interrupted; the question is withdrawn
     */
    public Answer ask(String agent, String question, Duration timeout, Consumer<PendingCall> announce)
            throws InterruptedException {
        if (agent == null || agent.isBlank() || question == null || question.isBlank()) {
            throw new IllegalArgumentException("Approvals.ask needs an agent and a question");
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("Approvals.ask timeout must be positive, was " + timeout);
        }
        if (announce == null) {
            throw new IllegalArgumentException("Approvals.ask announce must not be null; use call -> { } for no announcement");
        }
        return desk.ask(agent, question, timeout, announce, clock.instant());
    }

    /**
     * The waiting calls that waited longer than the timeout by {@code now}.
     *
     * @param now the time to judge by
     * @return the calls, empty without a timeout
     */
    public List<PendingCall> expired(Instant now) {
        if (timeout == null) {
            return List.of();
        }
        List<PendingCall> late = new ArrayList<>();
        for (PendingCall p : unanswered()) {
            if (!p.since().plus(timeout).isAfter(now)) {
                late.add(p);
            }
        }
        return late;
    }

    /**
     * When the first unanswered call runs out of time.
     *
     * @return the instant, or empty without a timeout or an unanswered call
     */
    public Optional<Instant> deadline() {
        if (timeout == null) {
            return Optional.empty();
        }
        Instant first = null;
        for (PendingCall p : unanswered()) {
            Instant due = p.since().plus(timeout);
            if (first == null || due.isBefore(first)) {
                first = due;
            }
        }
        return Optional.ofNullable(first);
    }

    /**
     * Everything a paused conversation waits for, to save.
     *
     * @return the state
     */
    public State state() {
        return desk.state();
    }

    /**
     * Replaces the state with a saved one.
     *
     * @param state the state, as {@link #state()} gave it
     */
    public void restore(State state) {
        if (state == null) {
            throw new IllegalArgumentException("Approvals.restore state must not be null; use State.EMPTY");
        }
        desk.restore(state);
    }

    /**
     * Forgets the paused runs and the answers kept for them (the "always" decisions stay): what
     * cancelling a paused turn does after it answered the calls.
     */
    public void clearPaused() {
        desk.clearPaused();
    }

    @Override
    public String toString() {
        return "Approvals[" + pending().size() + " pending]";
    }

    // ------------------------------------------------------------------ package-private, for the run

    Instant now() {
        return clock.instant();
    }

    static String id(String path, String callId) {
        return path.isEmpty() ? callId : path + "/" + callId;
    }

    /** The kept frame of a run, or null. */
    Frame frame(String path) {
        return desk.frame(path);
    }

    /** Takes the answer to a call, once. */
    Answer take(String id) {
        return desk.take(id);
    }

    /** What the policy and the remembered decisions say about a call no answer decided. */
    ToolDecision decide(String agent, ToolCall call) {
        String tool = call.name();
        ToolPolicy.Permission p = policy(agent).decide(tool);
        if (p == ToolPolicy.Permission.DENY) {
            return ToolDecision.deny("the tool policy of agent '" + agent + "' does not allow it");
        }
        boolean question = tool.equals(AskUser.NAME);
        if (question) {
            return ToolDecision.pause(AskUser.question(call.arguments()));
        }
        if (p == ToolPolicy.Permission.ALLOW) {
            return ToolDecision.ALLOW;
        }
        ToolPolicy.Permission remembered = desk.granted(agent, tool);
        if (remembered == null && permissions != null) {
            remembered = permissions.remembered(agent, tool).orElse(null);
        }
        if (remembered == ToolPolicy.Permission.ALLOW) {
            return ToolDecision.ALLOW;
        }
        if (remembered == ToolPolicy.Permission.DENY) {
            return ToolDecision.deny("the user does not allow agent '" + agent + "' to use tool '" + tool + "'");
        }
        return ToolDecision.pause("agent '" + agent + "' asks to run tool '" + tool + "'");
    }

    /** The decision an answer makes about a call. */
    static ToolDecision decision(Answer answer, ToolCall call) {
        return ApprovalDesk.decision(answer, call);
    }

    /** Keeps a paused run; a call that waited before keeps the time it began waiting. */
    List<PendingCall> pause(String path, String agent, List<Message> chat, List<ToolResult> held,
            List<PendingCall> waiting, List<ToolCall> delegated) {
        return desk.pause(path, agent, chat, held, waiting, delegated);
    }

    /** Keeps the answer of a delegated child that finished while a sibling paused. */
    void finished(String path, String agent, String text) {
        desk.finished(path, agent, text);
    }

    /** Forgets a run's frame and those of the children under it, and the answers kept for them. */
    void clear(String path) {
        desk.clear(path);
    }

    /** Collects the policies and settings of approvals. */
    public static final class Builder extends ApprovalsSettings {
        private Builder() {}

        /**
         * Builds the approvals, with nothing pending.
         *
         * @return the approvals
         */
        public Approvals build() {
            return new Approvals(this);
        }
    }
}
