package dev.shelly.agent.internal;

import dev.shelly.agent.Registry;
import dev.shelly.agent.RunContext;
import dev.shelly.agent.internal.ChildTask.Child;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ShellyException;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import dev.shelly.tools.ToolHandler;
import dev.shelly.tools.ToolOutput;
import dev.shelly.tools.internal.ArgumentsText;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.io.JsonStringEncoder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The tools an agent with a registry gets: {@code list_agents} and {@code delegate}.
 *
 * <p>{@code delegate} takes {@code {"tasks":[{"agent","task","context"}, ...]}}, checks every task
 * before starting any, then runs one fresh child per task, concurrently (a lone task on the
 * parent's own thread). The child is spawned from the registry and runs one level below the
 * parent run, at the path of the call and its task: with the parent's registry
 * (unless it has its own), delegation limit, listener, links, session and values; its run names
 * the parent's run. It receives the context (when given) and the task as two user messages from
 * the parent. The result is a JSON array in task order:
 * {@code [{"agent":"a","result":"..."},{"agent":"b","error":"..."}]}. The first child to fail
 * cancels its siblings (they are interrupted); the result is then marked as an error. A child
 * whose own run is {@linkplain RunContext#cancel() cancelled} does not fail its siblings: its
 * task's entry is the error {@code agent 'x' was cancelled}, the others go on.
 */
final class Orchestration {
    static final String LIST_AGENTS = "list_agents";
    static final String DELEGATE = "delegate";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /**
     * What a results array cut to the limit keeps free for its closing bracket and note: the
     * longest note, with ten-digit counts and limit, is 206 characters.
     */
    private static final int NOTE_ROOM = 256;

    private static final String LIST_SCHEMA = """
            {"type":"object","properties":{},"additionalProperties":false}""";

    private static final String DELEGATE_SCHEMA = """
            {"type":"object","properties":{"tasks":{"type":"array","minItems":1,"description":"One entry per task; \
            the tasks run concurrently, each by a fresh agent.","items":{"type":"object","properties":{\
            "agent":{"type":"string","description":"The name of the agent to delegate to, from list_agents"},\
            "task":{"type":"string","description":"What the agent should do, complete and self-contained"},\
            "context":{"type":"string","description":"What the agent needs to know: facts, constraints, earlier \
            results. It sees nothing of your conversation."}},"required":["agent","task"]}}},\
            "required":["tasks"]}""";

    /** What the model is told about {@code list_agents}. */
    static final ToolDefinition LIST_AGENTS_TOOL = new ToolDefinition(LIST_AGENTS,
            "List the agents you can delegate to, with what each one does, as JSON.", LIST_SCHEMA);

    /** What the model is told about {@code delegate}. */
    static final ToolDefinition DELEGATE_TOOL = new ToolDefinition(DELEGATE,
            "Delegate tasks to other agents. Each task goes to a fresh agent that sees only the task and its "
                    + "context; all tasks run concurrently and their results come back as a JSON array in task "
                    + "order. If one fails, the others are cancelled.", DELEGATE_SCHEMA);

    private Orchestration() {}

    /** Where a {@code delegate} call says why its children wait, for the turn to keep the call waiting. */
    static final class Waiting {
        volatile String reason;
    }

    /** The tool box for one call of {@code name}: {@code list_agents} or {@code delegate}, whichever is called. */
    static ToolBox toolbox(String name, Run run, String callId, Waiting waiting) {
        return ToolBox.of(name.equals(LIST_AGENTS)
                ? new Tool(LIST_AGENTS_TOOL, (input, ctx) -> ToolOutput.text(listAgents(run)), null)
                : new Tool(DELEGATE_TOOL, new DelegateHandler(run, callId, waiting), null));
    }

    /**
     * The {@code delegate} tool of one call. Arguments in the shape a model sends, whose every
     * task may be delegated, are read from their text ({@link TaskReader}): no tree of N tasks is
     * built. Any others go the way of every tool's, through the tree, which says what is wrong.
     */
    private record DelegateHandler(Run run, String callId, Waiting waiting) implements ArgumentsText {
        @Override
        public ToolOutput call(JsonNode input, ToolContext context) throws InterruptedException {
            return delegate(run, callId, waiting, input);
        }

        @Override
        public ToolHandler read(String arguments) {
            RunContext ctx = run.context;
            Registry registry = ctx.registry().orElse(null);
            if (ctx.depth() >= ctx.delegationLimit() || registry == null) {
                return null;
            }
            Delegation call = new Delegation(run, callId);
            return call.read(registry, arguments) ? (input, context) -> call.run(waiting) : null;
        }
    }

    static String listAgents(Run run) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartArray();
            for (Registry.Entry e : run.otherAgents()) {
                g.writeStartObject();
                g.writeStringProperty("name", e.name());
                g.writeStringProperty("description", e.description());
                g.writeEndObject();
            }
            g.writeEndArray();
        }
        return out.toString();
    }

    static ToolOutput delegate(Run parent, String callId, Waiting waiting, JsonNode input) throws InterruptedException {
        RunContext ctx = parent.context;
        if (ctx.depth() >= ctx.delegationLimit()) {
            return ToolOutput.error("agent '" + parent.name() + "' cannot delegate: it runs at delegation depth "
                    + ctx.depth() + " and the delegation depth limit is " + ctx.delegationLimit()
                    + "; do the work yourself");
        }
        Registry registry = parent.context.registry().orElseThrow();
        Delegation call = new Delegation(parent, callId);
        String problem = call.parse(registry, input);
        if (input instanceof ObjectNode tree) {
            // The tree is this call's own; emptied, it no longer holds every task's nodes while
            // the children run (the tool box's frames keep its root until the call returns).
            tree.removeAll();
        }
        if (problem != null) {
            return ToolOutput.error(problem + "; nothing was delegated");
        }
        return call.run(waiting);
    }

    private static String text(JsonNode node) {
        if (node == null || !node.isString() || node.stringValue().isBlank()) {
            return null;
        }
        return node.stringValue().strip();
    }

    private static String available(Run parent) {
        List<String> names = new ArrayList<>();
        for (Registry.Entry e : parent.otherAgents()) {
            names.add(e.name());
        }
        return names.isEmpty() ? "none" : String.join(", ", names);
    }

    /**
     * One {@code delegate} call: its delegating run and its checked tasks; each task's child runs
     * as a {@link ChildTask}, which reads the call's run, desk and paths.
     */
    static final class Delegation {
        final Run parent;
        final String callId;
        final String from;
        final Approver desk;
        final List<ChildTask> tasks = new ArrayList<>();
        /** The agent names checked so far, each to the one string its tasks share. */
        private final Map<String, String> checked = new HashMap<>();
        private String lastContext;
        /** The message of {@link #lastContext}, which every task with that context shares. */
        private Message lastContextMessage;
        /** The children that did not answer (paused, or cancelled by themselves); counted as they end. */
        final AtomicInteger unanswered = new AtomicInteger();

        Delegation(Run parent, String callId) {
            this.parent = parent;
            this.callId = callId;
            this.from = parent.name();
            this.desk = parent.approver;
        }

        /**
         * Checks the input and fills the tasks; returns null, or what is wrong. Equal agent names
         * share one string, and so does a context equal to the previous task's: the tasks are
         * kept while the children run, and a model's N tasks often name one agent with one context.
         */
        String parse(Registry registry, JsonNode input) {
            JsonNode list = input.get("tasks");
            if (list == null || !list.isArray()) {
                return "delegate needs 'tasks': a list of {\"agent\", \"task\", \"context\"} objects";
            }
            if (list.isEmpty()) {
                return "delegate needs at least one task in 'tasks'";
            }
            for (int i = 0; i < list.size(); i++) {
                JsonNode item = list.get(i);
                if (!item.isObject()) {
                    return "tasks[" + i + "] must be an object {\"agent\", \"task\", \"context\"}";
                }
                String named = text(item.get("agent"));
                String agent = known(registry, named, i);
                if (agent == null) {
                    return check(registry, named, i);
                }
                String task = text(item.get("task"));
                if (task == null) {
                    return "tasks[" + i + "].task is missing; say what agent '" + agent + "' should do";
                }
                JsonNode contextNode = item.get("context");
                add(agent, task, contextNode == null || contextNode.isNull() ? null
                        : contextNode.isString() ? contextNode.stringValue() : JSON.writeValueAsString(contextNode));
            }
            return null;
        }

        /**
         * Reads arguments in the shape a model sends from their text ({@link TaskReader}) and
         * fills the tasks, as {@link #parse} would; returns false, at anything {@code parse} would
         * refuse or that the reader does not read, for the tree to say what is wrong: this call
         * is then dropped with what it read.
         */
        boolean read(Registry registry, String arguments) {
            return TaskReader.read(arguments, (agent, task, context) -> {
                String known = agent.isBlank() || task.isBlank() ? null : known(registry, agent.strip(), tasks.size());
                if (known == null) {
                    return false;
                }
                add(known, task.strip(), context);
                return true;
            });
        }

        /**
         * The one string of an agent task {@code i} may delegate to, shared by every task that
         * names it; null when it may not ({@link #check} says why).
         */
        private String known(Registry registry, String named, int i) {
            String known = named == null ? null : checked.get(named);
            if (known == null && check(registry, named, i) == null) {
                checked.put(named, named);
                known = named;
            }
            return known;
        }

        /**
         * Adds a checked task; a context equal to the previous task's shares its string and its
         * message (a message is a value: the children's chats may hold the same one).
         */
        private void add(String agent, String task, String context) {
            Message shared = null;
            if (context != null && !context.isBlank()) {
                if (!context.equals(lastContext)) {
                    lastContext = context;
                    lastContextMessage = Message.text(from, Role.USER, context);
                }
                shared = lastContextMessage;
            }
            tasks.add(new ChildTask(this, agent, task, shared));
        }

        /** What is wrong with the agent a task names, or null when it may be delegated to. */
        private String check(Registry registry, String agent, int i) {
            String at = "tasks[" + i + "]";
            if (agent == null) {
                return at + ".agent is missing; name one of: " + available(parent);
            }
            if (agent.equals(parent.name())) {
                return at + ": agent '" + parent.name() + "' cannot delegate to itself; pick another agent or do the work yourself";
            }
            if (!registry.contains(agent)) {
                return at + ": unknown agent '" + agent + "'; available agents: " + available(parent);
            }
            if (parent.agent.delegateTargets() != null && !parent.agent.delegateTargets().contains(agent)) {
                return at + ": agent '" + parent.name() + "' may not delegate to '" + agent + "'; it delegates only to: "
                        + available(parent);
            }
            return null;
        }

        /** The path of the child of task i: the delegating run's path, the call's id and i. */
        String path(int i) {
            String above = parent.context.path();
            return (above.isEmpty() ? "" : above + "/") + callId + "/" + i;
        }

        /**
         * Runs one child per task, one level below the delegating run, the first failure
         * cancelling the others, and writes the results in task order. With approvals, a child
         * that pauses does not stop its siblings; once all have finished or paused, the call waits
         * too (through {@code waiting}), keeping the finished children's answers, and the next run
         * of the call resumes the paused children on their kept chats. Without approvals, a child
         * that pauses fails its task.
         */
        ToolOutput run(Waiting waiting) throws InterruptedException {
            FanOut.Joined<Child> joined = FanOut.of(tasks).failFast(true).grace(parent.context.cancelGrace())
                    .propagate(Observers.propagation(parent.context.observers())).join();
            if (joined.interrupted()) {
                clearFrames();
                throw new InterruptedException("agent '" + from + "' was cancelled while delegating");
            }
            boolean failed = false;
            boolean paused = false;
            int firstFailure = -1;
            // Every child answered, the usual end, unless a task failed or a child paused or was
            // cancelled by itself: only then is each outcome looked at.
            if (!joined.allSucceeded() || unanswered.get() > 0) {
                for (int i = 0; i < tasks.size(); i++) {
                    if (joined.outcomes().get(i) instanceof FanOut.Outcome.Success<Child> s && !s.value().cancelled()) {
                        paused |= s.value().waiting() != null;
                    } else {
                        failed = true;
                        firstFailure = firstFailure < 0 ? i : firstFailure;
                    }
                }
            }
            if (paused && !failed) {
                Map<String, String> reasons = new LinkedHashMap<>();
                for (int i = 0; i < tasks.size(); i++) {
                    Child c = ((FanOut.Outcome.Success<Child>) joined.outcomes().get(i)).value();
                    if (c.waiting() == null) {
                        desk.finished(path(i), tasks.get(i).agent, c.answer());
                    } else {
                        reasons.put(callId + "/" + i, c.waiting());
                    }
                }
                waiting.reason = Outcome.Paused.describe(from, reasons, true);
                return ToolOutput.text("paused");
            }
            clearFrames();
            String json = results(joined, firstFailure, failed);
            return failed ? ToolOutput.error(json) : ToolOutput.text(json);
        }

        /** Forgets what the approvals kept for the children (and theirs). */
        private void clearFrames() {
            if (desk != null) {
                for (int i = 0; i < tasks.size(); i++) {
                    desk.clear(path(i));
                }
            }
        }

        /**
         * The results, a JSON array in task order. An answer's entry was written by its child, on
         * the child's own thread (the delegating thread's, for a lone task): the delegating
         * thread, which every child waits for, only strings the entries together.
         *
         * <p>When every child answered and the answers do not fit the agent's limit on a tool
         * result, the array keeps the entries that fit whole, and a note after it says which tasks'
         * results were left out: the model gets a valid JSON array and knows what is missing, and
         * of the entries left out only the one that crossed the limit is copied. Otherwise (a task
         * failed, or the first entry leaves no room for the note) the whole array is written and
         * cut as any tool's result is.
         */
        private String results(FanOut.Joined<Child> joined, int firstFailure, boolean failed) {
            int n = tasks.size();
            int limit = parent.agent.maxToolResultChars();
            boolean whole = failed; // written whole, to be cut as any tool's result
            int kept = 0; // the entries that fit with the note, and their length
            int keptLength = 0;
            StringBuilder out = new StringBuilder((int) Math.min(48L * n, limit + 64L)).append('[');
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    out.append(',');
                }
                FanOut.Outcome<Child> outcome = joined.outcomes().get(i);
                String entry = outcome instanceof FanOut.Outcome.Success<Child> s ? s.value().entry() : null;
                if (entry != null) {
                    out.append(entry);
                } else {
                    String agent = tasks.get(i).agent;
                    entry(out, agent, "error", error(i, agent, outcome, firstFailure));
                }
                if (whole) {
                    continue;
                }
                if (kept == i && out.length() < limit - NOTE_ROOM) {
                    kept = i + 1;
                    keptLength = out.length();
                } else if (out.length() >= limit) { // the array and its bracket will not fit
                    if (kept == 0) {
                        whole = true; // the first answer alone is too long for a note after it
                    } else {
                        out.setLength(keptLength);
                        return out.append("]\n\n").append(omitted(kept, n, limit)).toString();
                    }
                }
            }
            return out.append(']').toString();
        }

        /** The note after results cut to the limit: the results of tasks {@code from} to the last are left out. */
        private static String omitted(int from, int n, int limit) {
            return "[truncated: the results of tasks[" + from + "] to tasks[" + (n - 1) + "] (" + (n - from) + " of " + n
                    + " tasks) are omitted to keep within " + limit + " characters; delegate fewer tasks at once, "
                    + "or ask for shorter answers]";
        }

        /** Why task i has no answer. */
        private String error(int i, String agent, FanOut.Outcome<Child> outcome, int firstFailure) {
            return switch (outcome) {
                case FanOut.Outcome.Success<Child> s when s.value().waiting() != null -> "agent '" + agent
                        + "' waited for a decision and was stopped because tasks[" + firstFailure + "] (agent '"
                        + tasks.get(firstFailure).agent + "') failed";
                case FanOut.Outcome.Success<Child> s -> "agent '" + agent + "' was cancelled";
                case FanOut.Outcome.Failure<Child> f -> f.error() instanceof CancellationException
                        ? "agent '" + agent + "' was cancelled" : describe(f.error());
                case FanOut.Outcome.Cancelled<Child> c -> c.because() >= 0 && c.because() != i
                        ? "cancelled because tasks[" + c.because() + "] (agent '" + tasks.get(c.because()).agent
                                + "') failed"
                        : "agent '" + agent + "' was cancelled";
                case FanOut.Outcome.Abandoned<Child> a -> "agent '" + agent
                        + "' was cancelled and did not stop in time";
            };
        }
    }

    /**
     * Appends one entry of a {@code delegate} call's results: {@code {"agent":"a","result":"..."}}
     * or with {@code "error"}, the strings escaped as Jackson's generator escapes them.
     */
    static StringBuilder entry(StringBuilder out, String agent, String key, String text) {
        JsonStringEncoder quote = JsonStringEncoder.getInstance();
        out.append("{\"agent\":\"");
        quote.quoteAsString(agent, out);
        out.append("\",\"").append(key).append("\":\"");
        quote.quoteAsString(text, out);
        return out.append("\"}");
    }

    private static String describe(Throwable e) {
        if (e instanceof ShellyException && e.getMessage() != null && !e.getMessage().isBlank()) {
            return e.getMessage();
        }
        return e.toString();
    }
}
