package dev.shelly.examples;

import dev.shelly.agent.Agent;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.testing.Step;
import dev.shelly.state.tasks.Task;
import dev.shelly.state.tasks.TaskBoard;
import dev.shelly.state.tasks.TaskStatus;
import dev.shelly.tools.ToolBox;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import tools.jackson.databind.JsonNode;

/**
 * A task board: a planner agent splits a job into tasks with {@code tasks_create}; two worker
 * agents, running at the same time, each take the next pending task with {@code tasks_claim}
 * (atomic: no task is taken twice), do it, and report it with {@code tasks_update}, until no
 * task is left. The program prints the board afterwards. The same board on Redis spans
 * processes: see {@link RedisTasksExample}.
 */
public final class TasksExample implements Example {
    /** The most tool calls a worker makes: enough to claim and finish every task of a small job. */
    static final int WORKER_STEPS = 40;

    @Override
    public String name() {
        return "tasks";
    }

    @Override
    public String description() {
        return "a planner creates tasks on a board; two workers claim and finish them at the same time";
    }

    @Override
    public String defaultPrompt() {
        return "Prepare a release note for version 2.0: features, fixes, upgrade steps and known issues.";
    }

    @Override
    public Message run(ExampleRun run) throws Exception {
        TaskBoard board = new TaskBoard();
        ToolBox tools = board.tools();   // tasks_create, tasks_list, tasks_get, tasks_claim, tasks_update

        Agent planner = planner(run, tools);
        Message plan = planner.run(run.prompt(), run.scope());

        List<String> workers = List.of("worker-1", "worker-2");
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Message>> done = new ArrayList<>();
            for (String name : workers) {
                Agent worker = worker(name, run.model(workerScript()), tools, run);
                done.add(pool.submit(() -> worker.run("Work through the pending tasks on the board.", run.scope())));
            }
            for (Future<Message> f : done) {
                f.get();
            }
        }
        printBoard(board, run);
        return plan;
    }

    static Agent planner(ExampleRun run, ToolBox tools) {
        return Agent.builder("planner")
                .description("Splits a job into tasks on the board")
                .instructions("Split the job into three to five independent tasks. Create each with tasks_create "
                        + "(a short title and a one-sentence description). Do not do the tasks yourself. Reply "
                        + "with one line per task you created.")
                .completer(run.model(plannerScript()))
                .toolboxes(tools)
                .maxIterations(10)
                .listener(run.listener())
                .build();
    }

    static Agent worker(String name, dev.shelly.modeladapter.Completer model, ToolBox tools, ExampleRun run) {
        return Agent.builder(name)
                .description("Does tasks from the board")
                .instructions("Repeat: take the next task with tasks_claim (no id), do what it says in two or three "
                        + "sentences, and report that text with tasks_update (status completed, result: your text). "
                        + "Stop when tasks_claim says there is no pending task, and reply with the ids you finished.")
                .completer(model)
                .toolboxes(tools)
                .maxIterations(WORKER_STEPS)
                .listener(run.listener())
                .build();
    }

    static void printBoard(TaskBoard board, ExampleRun run) {
        for (Task t : board.list()) {
            run.note("[board] " + t.id() + " " + t.status().wireName()
                    + (t.assignee() == null ? "" : " by " + t.assignee()) + ": " + t.title());
        }
        long open = board.list().stream().filter(t -> !t.status().isFinal()).count();
        run.note("[board] " + board.list(TaskStatus.COMPLETED, null).size() + " of " + board.list().size()
                + " tasks completed" + (open == 0 ? "" : ", " + open + " still open"));
    }

    static List<Step> plannerScript() {
        return List.of(
                Step.toolCalls(
                        new Step.Call("tasks_create", Scripts.object("title", "List the new features",
                                "description", "Name the three biggest features of 2.0, one line each.")),
                        new Step.Call("tasks_create", Scripts.object("title", "List the fixes",
                                "description", "Summarise the notable bug fixes.")),
                        new Step.Call("tasks_create", Scripts.object("title", "Write the upgrade steps",
                                "description", "Say how to upgrade from 1.x in three steps.")),
                        new Step.Call("tasks_create", Scripts.object("title", "Note the known issues",
                                "description", "Name what does not work yet."))),
                Step.reply(chat -> "Created " + String.join(", ", createdIds(chat)) + "."));
    }

    /**
     * A scripted worker: after a claim it completes the task it got; after an update it claims
     * the next; when the claim finds nothing pending it replies with the ids it finished.
     */
    static List<Step> workerScript() {
        Step step = Step.answer(TasksExample::nextWorkerMove);
        return Collections.nCopies(WORKER_STEPS, step);
    }

    private static Message nextWorkerMove(ModelRequest chat) {
        String lastTool = lastToolName(chat);
        if (lastTool == null || lastTool.equals("tasks_update")) {
            return Scripts.call("tasks_claim", c -> "{}").respond().apply(chat).message();
        }
        String result = Scripts.lastResult(chat);
        if (!result.startsWith("{")) {
            List<String> finished = new ArrayList<>();
            for (String r : Scripts.allResults(chat)) {
                if (r.startsWith("{") && Scripts.tree(r).path("status").asString().equals("completed")) {
                    finished.add(Scripts.tree(r).path("id").asString());
                }
            }
            return Message.text(Step.SENDER, Role.ASSISTANT, finished.isEmpty() ? "No task was left for me."
                    : "Finished " + String.join(", ", finished) + ".");
        }
        JsonNode task = Scripts.tree(result);
        String done = "Done: " + task.path("title").asString() + ".";
        return Scripts.call("tasks_update", c -> Scripts.JSON.createObjectNode().put("id", task.path("id").asString())
                .put("status", "completed").put("result", done).toString()).respond().apply(chat).message();
    }

    private static String lastToolName(ModelRequest chat) {
        List<Message> messages = chat.messages();
        for (int i = messages.size() - 1; i >= 0; i--) {
            List<ToolCall> calls = messages.get(i).toolCalls();
            if (!calls.isEmpty()) {
                return calls.getLast().name();
            }
        }
        return null;
    }

    private static List<String> createdIds(ModelRequest chat) {
        List<String> ids = new ArrayList<>();
        for (String r : Scripts.allResults(chat)) {
            if (r.startsWith("{")) {
                ids.add(Scripts.tree(r).path("id").asString());
            }
        }
        return ids;
    }
}
