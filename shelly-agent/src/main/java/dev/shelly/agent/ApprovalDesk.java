package dev.shelly.agent;

import dev.shelly.chats.Message;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What {@link Approvals} keeps, under one lock: the paused runs of the tree (their frames), the
 * answers given to calls that have not run yet, the decisions remembered for the session, and
 * the questions running tools wait on. {@code Approvals} is its public face and holds the
 * settings; this holds the state and its bookkeeping.
 */
final class ApprovalDesk {
    private final ReentrantLock lock = new ReentrantLock();
    private final LinkedHashMap<String, Approvals.Frame> frames = new LinkedHashMap<>();
    private final LinkedHashMap<String, Answer> answers = new LinkedHashMap<>();
    private final LinkedHashMap<String, Approvals.Grant> grants = new LinkedHashMap<>();
    /** Questions asked while a tool runs ({@link #ask}), each with where its answer goes. */
    private final LinkedHashMap<String, Live> live = new LinkedHashMap<>();
    private long asked;

    /** A question a running tool waits on. */
    private record Live(PendingCall call, CompletableFuture<Answer> answer) {}

    boolean paused() {
        lock.lock();
        try {
            return !frames.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /** The waiting calls: the paused runs', children's before their parents', then the questions. */
    List<PendingCall> pending() {
        lock.lock();
        try {
            List<PendingCall> all = new ArrayList<>();
            for (Approvals.Frame f : frames.values()) {
                all.addAll(f.pending());
            }
            for (Live question : live.values()) {
                all.add(question.call());
            }
            return List.copyOf(all);
        } finally {
            lock.unlock();
        }
    }

    /** The waiting calls without an answer, in the order of {@link #pending()}. */
    List<PendingCall> unanswered() {
        lock.lock();
        try {
            List<PendingCall> open = new ArrayList<>();
            for (PendingCall p : pending()) {
                if (!answers.containsKey(p.id())) {
                    open.add(p);
                }
            }
            return List.copyOf(open);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Answers a waiting question, or keeps the answer to a paused call; an "always" answer is
     * remembered for the session here, for the project in {@code permissions}.
     */
    void answer(String id, Answer answer, PermissionStore permissions) {
        Live question;
        lock.lock();
        try {
            question = live.get(id);
            if (question != null) {
                check(question.call(), answer);
                live.remove(id);
            }
        } finally {
            lock.unlock();
        }
        if (question != null) {
            question.answer().complete(answer);
            return;
        }
        answerPaused(id, answer, permissions);
    }

    private void answerPaused(String id, Answer answer, PermissionStore permissions) {
        PendingCall call;
        lock.lock();
        try {
            call = find(id);
            if (call == null) {
                List<String> ids = new ArrayList<>();
                for (PendingCall p : pending()) {
                    ids.add(p.id());
                }
                throw new IllegalArgumentException("no tool call '" + id + "' waits for a decision; waiting: "
                        + (ids.isEmpty() ? "none" : String.join(", ", ids)));
            }
            if (answers.containsKey(id)) {
                throw new IllegalStateException("tool call '" + id + "' (tool '" + call.call().name()
                        + "' of agent '" + call.agent() + "') is answered already");
            }
            check(call, answer);
            Answer.Scope scope = switch (answer) {
                case Answer.Approve a -> a.scope();
                case Answer.Deny d -> d.scope();
                default -> Answer.Scope.ONCE;
            };
            ToolPolicy.Permission permission = answer instanceof Answer.Approve ? ToolPolicy.Permission.ALLOW
                    : ToolPolicy.Permission.DENY;
            if (scope == Answer.Scope.PROJECT) {
                if (permissions == null) {
                    throw new IllegalStateException("tool call '" + id + "' cannot be answered for the project: "
                            + "these approvals have no permission store");
                }
                permissions.remember(call.agent(), call.call().name(), permission);
            } else if (scope == Answer.Scope.SESSION) {
                grants.put(key(call.agent(), call.call().name()),
                        new Approvals.Grant(call.agent(), call.call().name(), permission));
            }
            answers.put(id, answer);
        } finally {
            lock.unlock();
        }
    }

    private static void check(PendingCall call, Answer answer) {
        boolean question = call.kind() == PendingCall.Kind.QUESTION;
        if (question && !(answer instanceof Answer.Reply || answer instanceof Answer.Deny)) {
            throw new IllegalArgumentException("tool call '" + call.id() + "' is a question of agent '" + call.agent()
                    + "' (" + call.reason() + "); answer it with Answer.reply(text) or Answer.deny(reason)");
        }
        if (!question && answer instanceof Answer.Reply) {
            throw new IllegalArgumentException("tool call '" + call.id() + "' (tool '" + call.call().name()
                    + "' of agent '" + call.agent() + "') needs approval, not a reply; answer it with approve, deny or edit");
        }
        if (question && answer instanceof Answer.Deny d && d.scope() != Answer.Scope.ONCE) {
            throw new IllegalArgumentException("tool call '" + call.id() + "' is a question; a question is denied "
                    + "once, not " + d.scope());
        }
    }

    /**
     * Puts a question in {@link #pending()} as an {@code ask_user} call and waits for its answer:
     * a reply, or a deny (also when nobody answered in time). The question is withdrawn however
     * the wait ends.
     */
    Answer ask(String agent, String question, Duration timeout, Consumer<PendingCall> announce, Instant now)
            throws InterruptedException {
        String id;
        PendingCall call;
        CompletableFuture<Answer> answer = new CompletableFuture<>();
        lock.lock();
        try {
            id = "ask-" + (++asked);
            ObjectNode arguments = Approvals.JSON.createObjectNode().put("question", question);
            call = new PendingCall(id, agent, new ToolCall(id, AskUser.NAME, arguments.toString()),
                    PendingCall.Kind.QUESTION, question, now);
            live.put(id, new Live(call, answer));
        } finally {
            lock.unlock();
        }
        try {
            announce.accept(call);
            return answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return Answer.deny("nobody answered within " + (timeout.toMillis() % 1000 == 0 ? timeout.toSeconds() + " s"
                    : timeout.toMillis() + " ms"));
        } catch (ExecutionException e) {
            throw new IllegalStateException("the question '" + id + "' failed", e.getCause());
        } finally {
            lock.lock();
            try {
                live.remove(id);
            } finally {
                lock.unlock();
            }
        }
    }

    Approvals.State state() {
        lock.lock();
        try {
            return new Approvals.State(new ArrayList<>(frames.values()), answers, new ArrayList<>(grants.values()));
        } finally {
            lock.unlock();
        }
    }

    void restore(Approvals.State state) {
        lock.lock();
        try {
            frames.clear();
            answers.clear();
            grants.clear();
            for (Approvals.Frame f : state.frames()) {
                frames.put(f.path(), f);
            }
            answers.putAll(state.answers());
            for (Approvals.Grant g : state.sessionGrants()) {
                grants.put(key(g.agent(), g.tool()), g);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Forgets the paused runs and the answers kept for them; the "always" decisions stay. */
    void clearPaused() {
        lock.lock();
        try {
            frames.clear();
            answers.clear();
        } finally {
            lock.unlock();
        }
    }

    /** The kept frame of a run, or null. */
    Approvals.Frame frame(String path) {
        lock.lock();
        try {
            return frames.get(path);
        } finally {
            lock.unlock();
        }
    }

    /** Takes the answer to a call, once. */
    Answer take(String id) {
        lock.lock();
        try {
            return answers.remove(id);
        } finally {
            lock.unlock();
        }
    }

    /** The decision remembered for the session about an agent's tool, or null. */
    ToolPolicy.Permission granted(String agent, String tool) {
        Approvals.Grant grant;
        lock.lock();
        try {
            grant = grants.get(key(agent, tool));
        } finally {
            lock.unlock();
        }
        return grant == null ? null : grant.permission();
    }

    /** Keeps a paused run; a call that waited before keeps the time it began waiting. */
    List<PendingCall> pause(String path, String agent, List<Message> chat, List<ToolResult> held,
            List<PendingCall> waiting, List<ToolCall> delegated) {
        lock.lock();
        try {
            Approvals.Frame before = frames.remove(path);
            List<PendingCall> kept = new ArrayList<>(waiting.size());
            List<PendingCall> fresh = new ArrayList<>();
            for (PendingCall p : waiting) {
                PendingCall old = null;
                if (before != null) {
                    for (PendingCall q : before.pending()) {
                        if (q.id().equals(p.id())) {
                            old = q;
                        }
                    }
                }
                if (old != null) {
                    kept.add(new PendingCall(p.id(), p.agent(), p.call(), p.kind(), p.reason(), old.since()));
                } else {
                    kept.add(p);
                    fresh.add(p);
                }
            }
            frames.put(path, new Approvals.Frame(path, agent, chat, held, kept, delegated, null));
            return fresh;
        } finally {
            lock.unlock();
        }
    }

    /** Keeps the answer of a delegated child that finished while a sibling paused. */
    void finished(String path, String agent, String text) {
        lock.lock();
        try {
            frames.remove(path);
            frames.put(path, new Approvals.Frame(path, agent, List.of(), List.of(), List.of(), List.of(), text));
        } finally {
            lock.unlock();
        }
    }

    /** Forgets a run's frame and those of the children under it, and the answers kept for them. */
    void clear(String path) {
        lock.lock();
        try {
            if (path.isEmpty()) {
                frames.clear();
                answers.clear();
                return;
            }
            String under = path + "/";
            frames.keySet().removeIf(p -> p.equals(path) || p.startsWith(under));
            answers.keySet().removeIf(id -> id.startsWith(under));
        } finally {
            lock.unlock();
        }
    }

    private PendingCall find(String id) {
        for (Approvals.Frame f : frames.values()) {
            for (PendingCall p : f.pending()) {
                if (p.id().equals(id)) {
                    return p;
                }
            }
        }
        return null;
    }

    private static String key(String agent, String tool) {
        return agent + '\u0000' + tool;
    }

    /** The decision an answer makes about a call. */
    static ToolDecision decision(Answer answer, ToolCall call) {
        return switch (answer) {
            case Answer.Approve a -> ToolDecision.ALLOW;
            case Answer.Deny d -> ToolDecision.deny(d.reason());
            case Answer.Edit e -> ToolDecision.rewrite(e.arguments());
            case Answer.Reply r -> ToolDecision.rewrite(withAnswer(call.arguments(), r.text()));
        };
    }

    private static String withAnswer(String arguments, String text) {
        ObjectNode node;
        try {
            JsonNode parsed = Approvals.JSON.readTree(arguments);
            node = parsed instanceof ObjectNode o ? o : Approvals.JSON.createObjectNode();
        } catch (RuntimeException e) {
            node = Approvals.JSON.createObjectNode();
        }
        node.put(AskUser.ANSWER, text);
        return Approvals.JSON.writeValueAsString(node);
    }
}
