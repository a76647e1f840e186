package dev.shelly.agent;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ShellyException;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The tools an agent with a registry gets: {@code list_agents} and {@code delegate}.
 *
 * <p>{@code delegate} takes {@code {"tasks":[{"agent","task","context"}, ...]}}, checks every task
 * before starting any, then runs one fresh child per task, each on its own virtual thread. The
 * child is spawned from the registry at the parent's depth + 1, inherits the registry, the
 * delegation limit and the event listener, and receives the context (when given) and the task as
 * two user messages from the parent. The result is a JSON array in task order:
 * {@code [{"agent":"a","result":"..."},{"agent":"b","error":"..."}]}. The first child to fail
 * cancels its siblings (they are interrupted); the result is then marked as an error.
 */
final class Orchestration {
    static final String LIST_AGENTS = "list_agents";
    static final String DELEGATE = "delegate";

    private static final JsonMapper JSON = JsonMapper.builder().build();

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

    static ToolBox toolbox(Agent agent) {
        return ToolBox.of(
                new Tool(LIST_AGENTS_TOOL, (input, ctx) -> ToolOutput.text(listAgents(agent)), null),
                new Tool(DELEGATE_TOOL, (input, ctx) -> delegate(agent, input), null));
    }

    static String listAgents(Agent agent) {
        ArrayNode array = JSON.createArrayNode();
        for (Registry.Entry e : agent.otherAgents()) {
            array.addObject().put("name", e.name()).put("description", e.description());
        }
        return JSON.writeValueAsString(array);
    }

    /** One task of a delegate call, checked. */
    record Task(String agent, String task, String context) {}

    static ToolOutput delegate(Agent parent, JsonNode input) throws InterruptedException {
        Registry registry = parent.registryOrNull();
        if (parent.depth() >= parent.delegationLimit()) {
            return ToolOutput.error("agent '" + parent.name() + "' cannot delegate: it runs at delegation depth "
                    + parent.depth() + " and the delegation depth limit is " + parent.delegationLimit()
                    + "; do the work yourself");
        }
        List<Task> tasks = new ArrayList<>();
        String problem = parse(parent, registry, input, tasks);
        if (problem != null) {
            return ToolOutput.error(problem + "; nothing was delegated");
        }
        return new FanOut(parent, registry, tasks).run();
    }

    /** Checks the input; fills {@code tasks} and returns null, or returns what is wrong. */
    private static String parse(Agent parent, Registry registry, JsonNode input, List<Task> tasks) {
        JsonNode list = input.get("tasks");
        if (list == null || !list.isArray()) {
            return "delegate needs 'tasks': a list of {\"agent\", \"task\", \"context\"} objects";
        }
        if (list.isEmpty()) {
            return "delegate needs at least one task in 'tasks'";
        }
        for (int i = 0; i < list.size(); i++) {
            JsonNode item = list.get(i);
            String at = "tasks[" + i + "]";
            if (!item.isObject()) {
                return at + " must be an object {\"agent\", \"task\", \"context\"}";
            }
            String agent = text(item.get("agent"));
            if (agent == null) {
                return at + ".agent is missing; name one of: " + available(parent);
            }
            if (agent.equals(parent.name())) {
                return at + ": agent '" + parent.name() + "' cannot delegate to itself; pick another agent or do the work yourself";
            }
            if (!registry.contains(agent)) {
                return at + ": unknown agent '" + agent + "'; available agents: " + available(parent);
            }
            String task = text(item.get("task"));
            if (task == null) {
                return at + ".task is missing; say what agent '" + agent + "' should do";
            }
            JsonNode contextNode = item.get("context");
            String context = contextNode == null || contextNode.isNull() ? null
                    : contextNode.isString() ? contextNode.stringValue() : JSON.writeValueAsString(contextNode);
            tasks.add(new Task(agent, task, context == null || context.isBlank() ? null : context));
        }
        return null;
    }

    private static String text(JsonNode node) {
        if (node == null || !node.isString() || node.stringValue().isBlank()) {
            return null;
        }
        return node.stringValue().strip();
    }

    private static String available(Agent parent) {
        List<String> names = new ArrayList<>();
        for (Registry.Entry e : parent.otherAgents()) {
            names.add(e.name());
        }
        return names.isEmpty() ? "none" : String.join(", ", names);
    }

    /** The concurrent run of one delegate call's children. */
    private static final class FanOut {
        private final Agent parent;
        private final Registry registry;
        private final List<Task> tasks;
        private final String[] results;
        private final String[] errors;
        private final Thread[] threads;
        private final CountDownLatch done;
        private final AtomicInteger firstFailure = new AtomicInteger(-1);

        FanOut(Agent parent, Registry registry, List<Task> tasks) {
            this.parent = parent;
            this.registry = registry;
            this.tasks = tasks;
            int n = tasks.size();
            this.results = new String[n];
            this.errors = new String[n];
            this.threads = new Thread[n];
            this.done = new CountDownLatch(n);
        }

        ToolOutput run() throws InterruptedException {
            for (int i = 0; i < threads.length; i++) {
                int slot = i;
                threads[i] = Thread.ofVirtual().unstarted(() -> runChild(slot));
            }
            for (Thread t : threads) {
                t.start();
            }
            try {
                done.await();
            } catch (InterruptedException e) {
                interruptAllBut(-1);
                try {
                    done.await(TimeUnit.NANOSECONDS.convert(parent.cancelGrace()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException again) {
                    // Interrupted twice: stop waiting.
                }
                throw e;
            }
            return output();
        }

        private void runChild(int i) {
            Task task = tasks.get(i);
            try {
                if (firstFailure.get() >= 0) {
                    errors[i] = cancelledBecause(firstFailure.get());
                    return;
                }
                Agent child = registry.spawn(task.agent(), parent.depth() + 1)
                        .orElseThrow(() -> new AgentException(task.agent(), "agent '" + task.agent()
                                + "' is not in the registry", null));
                child.adoptedBy(parent);
                List<Message> input = task.context() == null
                        ? List.of(Message.text(parent.name(), Role.USER, task.task()))
                        : List.of(Message.text(parent.name(), Role.USER, task.context()),
                                Message.text(parent.name(), Role.USER, task.task()));
                results[i] = child.run(input).text();
            } catch (CancellationException e) {
                int first = firstFailure.get();
                errors[i] = first >= 0 && first != i ? cancelledBecause(first) : "agent '" + task.agent() + "' was cancelled";
            } catch (RuntimeException | Error e) {
                errors[i] = describe(e);
                if (firstFailure.compareAndSet(-1, i)) {
                    interruptAllBut(i);
                }
            } finally {
                done.countDown();
            }
        }

        private String cancelledBecause(int first) {
            return "cancelled because tasks[" + first + "] (agent '" + tasks.get(first).agent() + "') failed";
        }

        private void interruptAllBut(int except) {
            for (int i = 0; i < threads.length; i++) {
                if (i != except) {
                    threads[i].interrupt();
                }
            }
        }

        private ToolOutput output() {
            ArrayNode array = JSON.createArrayNode();
            boolean failed = false;
            for (int i = 0; i < tasks.size(); i++) {
                ObjectNode o = array.addObject().put("agent", tasks.get(i).agent());
                if (errors[i] != null) {
                    o.put("error", errors[i]);
                    failed = true;
                } else {
                    o.put("result", results[i]);
                }
            }
            String json = JSON.writeValueAsString(array);
            return failed ? ToolOutput.error(json) : ToolOutput.text(json);
        }

        private static String describe(Throwable e) {
            if (e instanceof ShellyException && e.getMessage() != null && !e.getMessage().isBlank()) {
                return e.getMessage();
            }
            return e.toString();
        }
    }
}
