package dev.shelly.state.tasks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class TaskToolsTest {
    private static final ToolContext LEAD = ToolContext.of("lead");
    private static final ToolContext W1 = new ToolContext("worker-1", "lead", 1);
    private static final ToolContext W2 = new ToolContext("worker-2", "lead", 1);

    private final TaskBoard board = new TaskBoard(new InMemoryTaskBackend(), new TickingClock(), TickingClock.LEASE);
    private final ToolBox tools = board.tools();

    private ToolResult call(ToolContext ctx, String name, String arguments) {
        return tools.call(new ToolCall("call_1", name, arguments), ctx);
    }

    @Test
    void definitionsAreExact() {
        assertThat(tools.names()).containsExactly("tasks_create", "tasks_list", "tasks_get", "tasks_claim", "tasks_update");
        assertThat(tools.definitions()).containsExactly(
                new ToolDefinition("tasks_create",
                        "Add a task to the shared task board, where agents pick up work with tasks_claim. "
                                + "Returns the new task as JSON, with its id.",
                        "{\"type\":\"object\",\"properties\":{"
                                + "\"title\":{\"type\":\"string\",\"description\":\"A short name for the work, e.g. "
                                + "\\\"Summarise the Q3 report\\\".\"},"
                                + "\"description\":{\"type\":\"string\",\"description\":\"What exactly to do and what to "
                                + "deliver; the agent that claims the task works from this.\"}},"
                                + "\"required\":[\"title\"],\"additionalProperties\":false}"),
                new ToolDefinition("tasks_list",
                        "List the tasks on the shared task board in the order they were created, as a JSON array. "
                                + "Give status and/or assignee to see only those tasks, e.g. {\"status\":\"pending\"} for "
                                + "the work nobody has claimed yet.",
                        "{\"type\":\"object\",\"properties\":{"
                                + "\"status\":{\"type\":\"string\",\"enum\":[\"pending\",\"in_progress\",\"completed\","
                                + "\"failed\",\"cancelled\"],\"description\":\"Only tasks with this status.\"},"
                                + "\"assignee\":{\"type\":\"string\",\"description\":\"Only tasks claimed by the agent of "
                                + "this name.\"}},\"additionalProperties\":false}"),
                new ToolDefinition("tasks_get",
                        "Read one task of the shared task board by id, as JSON: its title, description, status, "
                                + "assignee and result.",
                        "{\"type\":\"object\",\"properties\":{"
                                + "\"id\":{\"type\":\"string\",\"description\":\"The task's id, e.g. \\\"task-1\\\".\"}},"
                                + "\"required\":[\"id\"],\"additionalProperties\":false}"),
                new ToolDefinition("tasks_claim",
                        "Take a pending task from the shared task board: you become its assignee and its status "
                                + "becomes in_progress. Give an id to claim that task, or no id to claim the oldest "
                                + "pending task. Only one agent gets a task: if another claimed it first this fails, and "
                                + "you can pick another. Returns the claimed task as JSON; when you are done, report "
                                + "with tasks_update.",
                        "{\"type\":\"object\",\"properties\":{"
                                + "\"id\":{\"type\":\"string\",\"description\":\"The id of the task to claim, e.g. "
                                + "\\\"task-1\\\"; leave it out to claim the oldest pending task.\"}},"
                                + "\"additionalProperties\":false}"),
                new ToolDefinition("tasks_update",
                        "Change the status of a task on the shared task board. When you finish a task you claimed, "
                                + "set completed (put what you produced in result) or failed (put why in result). Set "
                                + "pending to give a claimed task back for someone else, or cancelled when it is no "
                                + "longer needed. Returns the updated task as JSON.",
                        "{\"type\":\"object\",\"properties\":{"
                                + "\"id\":{\"type\":\"string\",\"description\":\"The task's id, e.g. \\\"task-1\\\".\"},"
                                + "\"status\":{\"type\":\"string\",\"enum\":[\"completed\",\"failed\",\"pending\","
                                + "\"cancelled\"],\"description\":\"The new status.\"},"
                                + "\"result\":{\"type\":\"string\",\"description\":\"What the work produced, or why it "
                                + "failed.\"}},\"required\":[\"id\",\"status\"],\"additionalProperties\":false}"));
        JsonMapper json = JsonMapper.builder().build();
        for (ToolDefinition d : tools.definitions()) {
            assertThat(json.readTree(d.inputSchema()).isObject()).as(d.name()).isTrue();
        }
    }

    @Test
    void aWholeTaskLifecycleThroughTheTools() {
        assertThat(call(LEAD, "tasks_create", "{\"title\":\"Research X\",\"description\":\"Find three sources\"}"))
                .isEqualTo(ToolResult.of("call_1", "{\"id\":\"task-1\",\"title\":\"Research X\","
                        + "\"description\":\"Find three sources\",\"status\":\"pending\",\"created_by\":\"lead\","
                        + "\"created_at\":\"2026-01-01T00:00:00Z\",\"updated_at\":\"2026-01-01T00:00:00Z\"}"));
        assertThat(call(LEAD, "tasks_create", "{\"title\":\"Write\"}").text())
                .isEqualTo("{\"id\":\"task-2\",\"title\":\"Write\",\"description\":\"\",\"status\":\"pending\","
                        + "\"created_by\":\"lead\",\"created_at\":\"2026-01-01T00:00:01Z\","
                        + "\"updated_at\":\"2026-01-01T00:00:01Z\"}");

        assertThat(call(W1, "tasks_claim", "{\"id\":\"task-1\"}"))
                .isEqualTo(ToolResult.of("call_1", "{\"id\":\"task-1\",\"title\":\"Research X\","
                        + "\"description\":\"Find three sources\",\"status\":\"in_progress\",\"assignee\":\"worker-1\","
                        + "\"created_by\":\"lead\",\"created_at\":\"2026-01-01T00:00:00Z\","
                        + "\"updated_at\":\"2026-01-01T00:00:02Z\"}"));

        assertThat(call(W1, "tasks_update", "{\"id\":\"task-1\",\"status\":\"completed\",\"result\":\"a, b, c\"}"))
                .isEqualTo(ToolResult.of("call_1", "{\"id\":\"task-1\",\"title\":\"Research X\","
                        + "\"description\":\"Find three sources\",\"status\":\"completed\",\"assignee\":\"worker-1\","
                        + "\"created_by\":\"lead\",\"result\":\"a, b, c\",\"created_at\":\"2026-01-01T00:00:00Z\","
                        + "\"updated_at\":\"2026-01-01T00:00:03Z\"}"));

        assertThat(call(LEAD, "tasks_get", "{\"id\":\"task-1\"}").text())
                .isEqualTo("{\"id\":\"task-1\",\"title\":\"Research X\",\"description\":\"Find three sources\","
                        + "\"status\":\"completed\",\"assignee\":\"worker-1\",\"created_by\":\"lead\","
                        + "\"result\":\"a, b, c\",\"created_at\":\"2026-01-01T00:00:00Z\","
                        + "\"updated_at\":\"2026-01-01T00:00:03Z\"}");
        assertThat(call(LEAD, "tasks_list", "{\"status\":\"pending\"}").text())
                .isEqualTo("[{\"id\":\"task-2\",\"title\":\"Write\",\"description\":\"\",\"status\":\"pending\","
                        + "\"created_by\":\"lead\",\"created_at\":\"2026-01-01T00:00:01Z\","
                        + "\"updated_at\":\"2026-01-01T00:00:01Z\"}]");
        assertThat(call(LEAD, "tasks_list", "{\"assignee\":\"worker-1\"}").text()).startsWith("[{\"id\":\"task-1\",");
        assertThat(call(LEAD, "tasks_list", "{}").text()).startsWith("[{\"id\":\"task-1\",").contains("{\"id\":\"task-2\",");
        assertThat(call(LEAD, "tasks_list", "{\"status\":\"failed\"}")).isEqualTo(ToolResult.of("call_1", "[]"));
    }

    @Test
    void theClaimingAgentComesFromTheContextNotTheInput() {
        board.create("t", "");
        ToolResult r = call(W2, "tasks_claim", "{\"id\":\"task-1\",\"assignee\":\"worker-1\",\"agent\":\"worker-1\"}");
        assertThat(r.isError()).isFalse();
        assertThat(board.get("task-1").orElseThrow().assignee()).isEqualTo("worker-2");
    }

    @Test
    void claimWithoutAnIdTakesTheOldestPendingTask() {
        board.create("a", "");
        board.create("b", "");
        assertThat(call(W1, "tasks_claim", "{}").text()).startsWith("{\"id\":\"task-1\",");
        assertThat(call(W2, "tasks_claim", "{\"id\":null}").text()).startsWith("{\"id\":\"task-2\",");
        assertThat(call(W2, "tasks_claim", "")).isEqualTo(ToolResult.error("call_1",
                "no pending task to claim; the board holds 2 in_progress"));
        call(W1, "tasks_update", "{\"id\":\"task-1\",\"status\":\"completed\"}");
        assertThat(call(W2, "tasks_claim", "{}").text()).isEqualTo(
                "no pending task to claim; the board holds 1 in_progress, 1 completed");
        assertThat(new TaskBoard().tools().call(new ToolCall("c", "tasks_claim", "{}"), W1).text())
                .isEqualTo("no pending task to claim; the board is empty");
    }

    @Test
    void refusalsReachTheModelAsErrorsWithTheBoardsMessage() {
        board.create("t", "");
        call(W1, "tasks_claim", "{\"id\":\"task-1\"}");
        assertThat(call(W2, "tasks_claim", "{\"id\":\"task-1\"}")).isEqualTo(ToolResult.error("call_1",
                "cannot claim task task-1: it is in_progress, claimed by 'worker-1'; only pending tasks can be claimed"));
        assertThat(call(W2, "tasks_update", "{\"id\":\"task-1\",\"status\":\"completed\",\"result\":\"mine\"}"))
                .isEqualTo(ToolResult.error("call_1",
                        "agent 'worker-2' cannot mark task task-1 completed: it is assigned to 'worker-1'"));
        assertThat(call(W1, "tasks_update", "{\"id\":\"task-1\",\"status\":\"in_progress\"}")).isEqualTo(
                ToolResult.error("call_1", "status in_progress cannot be set with tasks_update: call tasks_claim to "
                        + "take a pending task"));
        assertThat(call(W1, "tasks_update", "{\"id\":\"task-1\",\"status\":\"done\"}")).isEqualTo(ToolResult.error(
                "call_1", "unknown task status 'done'; use one of: pending, in_progress, completed, failed, cancelled"));
        call(LEAD, "tasks_update", "{\"id\":\"task-1\",\"status\":\"cancelled\"}");
        assertThat(call(W1, "tasks_update", "{\"id\":\"task-1\",\"status\":\"completed\"}")).isEqualTo(
                ToolResult.error("call_1", "cannot move task task-1 from cancelled to completed: cancelled is final"));
        assertThat(board.get("task-1").orElseThrow().result()).isNull();
    }

    @Test
    void badInputGetsAnErrorTheModelCanActOn() {
        assertThat(call(LEAD, "tasks_create", "{}"))
                .isEqualTo(ToolResult.error("call_1", "missing required field 'title': a short name for the work"));
        assertThat(call(LEAD, "tasks_create", "{\"title\":\"  \"}"))
                .isEqualTo(ToolResult.error("call_1", "field 'title' must not be blank: a short name for the work"));
        assertThat(call(LEAD, "tasks_create", "{\"title\":\"t\",\"description\":[\"x\"]}"))
                .isEqualTo(ToolResult.error("call_1", "field 'description' must be a string, got array"));
        assertThat(call(LEAD, "tasks_get", "{\"id\":\"task-7\"}")).isEqualTo(
                ToolResult.error("call_1", "no task 'task-7' on the board; call tasks_list to see the tasks"));
        assertThat(call(LEAD, "tasks_get", "{\"id\":7}"))
                .isEqualTo(ToolResult.error("call_1", "field 'id' must be a string, got number"));
        assertThat(call(W1, "tasks_claim", "{\"id\":\"\"}"))
                .isEqualTo(ToolResult.error("call_1", "field 'id' must not be blank: a task id like \"task-1\""));
        assertThat(call(W1, "tasks_update", "{\"id\":\"task-7\",\"status\":\"completed\"}")).isEqualTo(
                ToolResult.error("call_1", "no task 'task-7' on the board; call tasks_list to see the tasks"));
        board.create("t", "");
        assertThat(call(W1, "tasks_update", "{\"id\":\"task-1\"}")).isEqualTo(ToolResult.error("call_1",
                "missing required field 'status': completed, failed, pending or cancelled"));
        assertThat(call(LEAD, "tasks_list", "{\"status\":\"open\"}")).isEqualTo(ToolResult.error("call_1",
                "unknown task status 'open'; use one of: pending, in_progress, completed, failed, cancelled"));
        assertThat(board.list()).hasSize(1);
    }

    @Test
    void namespacedToolsForASecondBoard() {
        assertThat(board.tools("review").names()).containsExactly("review_tasks_create", "review_tasks_list",
                "review_tasks_get", "review_tasks_claim", "review_tasks_update");
        assertThat(board.tools("review").definitions().get(0).description()).isEqualTo(
                "Add a task to the shared task board, where agents pick up work with review_tasks_claim. "
                        + "Returns the new task as JSON, with its id.");
        assertThatThrownBy(() -> board.tools("a b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("task tool namespace 'a b' is invalid: use 1 to 51 letters, digits, '_' or '-', so that "
                        + "'a b_tasks_create' is a valid tool name");
        assertThatThrownBy(() -> board.tools("x".repeat(52))).isInstanceOf(IllegalArgumentException.class);
        assertThat(board.tools("x".repeat(51)).names()).contains("x".repeat(51) + "_tasks_create");
        assertThatThrownBy(() -> board.tools(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("task tool namespace must not be null");
    }
}
