package dev.shelly.state.tasks;

import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolHandler;
import dev.shelly.tools.ToolOutput;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** Builds the tools through which agents use a {@link TaskBoard}. */
final class TaskTools {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** 51 = 64, the longest tool name providers accept, minus the 13 characters of "_tasks_create". */
    private static final Pattern NAMESPACE = Pattern.compile("[a-zA-Z0-9_-]{1,51}");

    private TaskTools() {}

    static String prefix(String ns) {
        if (ns == null) {
            throw new IllegalArgumentException("task tool namespace must not be null");
        }
        if (!NAMESPACE.matcher(ns).matches()) {
            throw new IllegalArgumentException("task tool namespace '" + ns + "' is invalid: use 1 to 51 letters, "
                    + "digits, '_' or '-', so that '" + ns + "_tasks_create' is a valid tool name");
        }
        return ns + "_tasks";
    }

    static ToolBox toolBox(TaskBoard board, String p) {
        return ToolBox.of(create(board, p), list(board, p), get(board, p), claim(board, p), update(board, p));
    }

    private static Tool create(TaskBoard board, String p) {
        return Tool.of(p + "_create",
                "Add a task to the shared task board, where agents pick up work with " + p + "_claim. "
                        + "Returns the new task as JSON, with its id.",
                """
                {"type":"object","properties":{\
                "title":{"type":"string","description":"A short name for the work, e.g. \\"Summarise the Q3 report\\"."},\
                "description":{"type":"string","description":"What exactly to do and what to deliver; the agent that \
                claims the task works from this."}},\
                "required":["title"],"additionalProperties":false}""",
                handler((input, ctx) -> {
                    String title = requiredString(input, "title", "a short name for the work");
                    String description = optionalString(input, "description");
                    return json(board.create(title, description, ctx.agent()));
                }));
    }

    private static Tool list(TaskBoard board, String p) {
        return Tool.of(p + "_list",
                "List the tasks on the shared task board in the order they were created, as a JSON array. "
                        + "Give status and/or assignee to see only those tasks, e.g. {\"status\":\"pending\"} for "
                        + "the work nobody has claimed yet.",
                """
                {"type":"object","properties":{\
                "status":{"type":"string","enum":["pending","in_progress","completed","failed","cancelled"],\
                "description":"Only tasks with this status."},\
                "assignee":{"type":"string","description":"Only tasks claimed by the agent of this name."}},\
                "additionalProperties":false}""",
                handler((input, ctx) -> {
                    String status = optionalString(input, "status");
                    String assignee = optionalString(input, "assignee");
                    List<Task> tasks = board.list(status == null ? null : TaskStatus.fromWireName(status), assignee);
                    ArrayNode array = JsonNodeFactory.instance.arrayNode(tasks.size());
                    tasks.forEach(t -> array.add(toJson(t)));
                    return ToolOutput.text(JSON.writeValueAsString(array));
                }));
    }

    private static Tool get(TaskBoard board, String p) {
        return Tool.of(p + "_get",
                "Read one task of the shared task board by id, as JSON: its title, description, status, assignee "
                        + "and result.",
                """
                {"type":"object","properties":{\
                "id":{"type":"string","description":"The task's id, e.g. \\"task-1\\"."}},\
                "required":["id"],"additionalProperties":false}""",
                handler((input, ctx) -> json(existing(board, p, input))));
    }

    private static Tool claim(TaskBoard board, String p) {
        return Tool.of(p + "_claim",
                "Take a pending task from the shared task board: you become its assignee and its status becomes "
                        + "in_progress. Give an id to claim that task, or no id to claim the oldest pending task. "
                        + "Only one agent gets a task: if another claimed it first this fails, and you can pick "
                        + "another. Returns the claimed task as JSON; when you are done, report with " + p + "_update.",
                """
                {"type":"object","properties":{\
                "id":{"type":"string","description":"The id of the task to claim, e.g. \\"task-1\\"; \
                leave it out to claim the oldest pending task."}},\
                "additionalProperties":false}""",
                handler((input, ctx) -> {
                    if (optionalString(input, "id") == null) {
                        Optional<Task> next = board.claimNext(ctx.agent());
                        if (next.isEmpty()) {
                            return ToolOutput.error("no pending task to claim; " + census(board.list()));
                        }
                        return json(next.get());
                    }
                    return json(board.claim(existing(board, p, input).id(), ctx.agent()));
                }));
    }

    private static Tool update(TaskBoard board, String p) {
        return Tool.of(p + "_update",
                "Change the status of a task on the shared task board. When you finish a task you claimed, set "
                        + "completed (put what you produced in result) or failed (put why in result). Set pending to "
                        + "give a claimed task back for someone else, or cancelled when it is no longer needed. "
                        + "Returns the updated task as JSON.",
                """
                {"type":"object","properties":{\
                "id":{"type":"string","description":"The task's id, e.g. \\"task-1\\"."},\
                "status":{"type":"string","enum":["completed","failed","pending","cancelled"],\
                "description":"The new status."},\
                "result":{"type":"string","description":"What the work produced, or why it failed."}},\
                "required":["id","status"],"additionalProperties":false}""",
                handler((input, ctx) -> {
                    Task task = existing(board, p, input);
                    String status = requiredString(input, "status", "completed, failed, pending or cancelled");
                    if (status.equals(TaskStatus.IN_PROGRESS.wireName())) {
                        return ToolOutput.error("status in_progress cannot be set with " + p + "_update: call " + p
                                + "_claim to take a pending task");
                    }
                    String result = optionalString(input, "result");
                    return json(board.update(task.id(), TaskStatus.fromWireName(status), result, ctx.agent()));
                }));
    }

    /** The task named by the input's id; tasks are never removed, so it cannot vanish afterwards. */
    private static Task existing(TaskBoard board, String p, JsonNode input) {
        String id = requiredString(input, "id", "a task id like \"task-1\"");
        return board.get(id).orElseThrow(() -> new IllegalArgumentException(
                "no task '" + id + "' on the board; call " + p + "_list to see the tasks"));
    }

    private static String census(List<Task> tasks) {
        if (tasks.isEmpty()) {
            return "the board is empty";
        }
        Map<TaskStatus, Long> counts = new EnumMap<>(TaskStatus.class);
        for (Task t : tasks) {
            counts.merge(t.status(), 1L, Long::sum);
        }
        return "the board holds " + counts.entrySet().stream()
                .map(e -> e.getValue() + " " + e.getKey().wireName())
                .collect(Collectors.joining(", "));
    }

    /** A task as the tools show it; assignee, created_by and result are left out when not set. */
    static ObjectNode toJson(Task t) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("id", t.id());
        o.put("title", t.title());
        o.put("description", t.description());
        o.put("status", t.status().wireName());
        if (t.assignee() != null) {
            o.put("assignee", t.assignee());
        }
        if (t.createdBy() != null) {
            o.put("created_by", t.createdBy());
        }
        if (t.result() != null) {
            o.put("result", t.result());
        }
        o.put("created_at", t.createdAt().toString());
        o.put("updated_at", t.updatedAt().toString());
        return o;
    }

    private static ToolOutput json(Task t) {
        return ToolOutput.text(JSON.writeValueAsString(toJson(t)));
    }

    private static String requiredString(JsonNode input, String field, String what) {
        String value = optionalString(input, field);
        if (value == null) {
            throw new IllegalArgumentException("missing required field '" + field + "': " + what);
        }
        if (value.isBlank()) {
            throw new IllegalArgumentException("field '" + field + "' must not be blank: " + what);
        }
        return value;
    }

    /** The field's text, or null when absent or JSON null. */
    private static String optionalString(JsonNode input, String field) {
        JsonNode node = input.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isString()) {
            throw new IllegalArgumentException("field '" + field + "' must be a string, got "
                    + node.getNodeType().name().toLowerCase(Locale.ROOT));
        }
        return node.stringValue();
    }

    /**
     * Refusals from the board (illegal moves, lost claims, bad input) become error results whose
     * text is the board's message, so the model reads exactly why.
     */
    private static ToolHandler handler(ToolHandler body) {
        return (input, context) -> {
            try {
                return body.call(input, context);
            } catch (IllegalArgumentException | TaskStateException e) {
                return ToolOutput.error(e.getMessage());
            }
        };
    }
}
