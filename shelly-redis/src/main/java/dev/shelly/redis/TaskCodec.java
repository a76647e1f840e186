package dev.shelly.redis;

import dev.shelly.chats.ShellyException;
import dev.shelly.state.tasks.Task;
import dev.shelly.state.tasks.TaskStatus;
import java.time.Instant;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A task as JSON text, always the same text for equal tasks: the fields in one order, nulls
 * written out (except {@code leaseUntil} and {@code claim}, present only on a claim), instants in
 * ISO-8601 (which reads back to the same instant). That is what lets the
 * replace script compare the stored text with the expected task's text: equal text, equal task.
 */
final class TaskCodec {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private TaskCodec() {}

    static String encode(Task t) {
        ObjectNode o = JSON.createObjectNode();
        o.put("id", t.id());
        o.put("title", t.title());
        o.put("description", t.description());
        o.put("status", t.status().wireName());
        o.put("assignee", t.assignee());
        o.put("createdBy", t.createdBy());
        o.put("result", t.result());
        o.put("createdAt", t.createdAt().toString());
        o.put("updatedAt", t.updatedAt().toString());
        if (t.leaseUntil() != null) {
            // Only a claim has it, so a task without one encodes as before leases existed: the text
            // a board compares with what older versions stored is the same.
            o.put("leaseUntil", t.leaseUntil().toString());
        }
        if (t.claim() != null) {
            // Likewise only on a claim; tasks stored before claims had tokens read back without one.
            o.put("claim", t.claim());
        }
        return JSON.writeValueAsString(o);
    }

    static Task decode(String where, String text) {
        try {
            JsonNode o = JSON.readTree(text);
            return new Task(text(o, "id"), text(o, "title"), text(o, "description"),
                    TaskStatus.fromWireName(text(o, "status")), text(o, "assignee"), text(o, "createdBy"),
                    text(o, "result"), Instant.parse(text(o, "createdAt")), Instant.parse(text(o, "updatedAt")),
                    o.has("leaseUntil") ? Instant.parse(text(o, "leaseUntil")) : null, text(o, "claim"));
        } catch (RuntimeException e) {
            throw new ShellyException(where + " holds no Shelly task (" + e.getMessage() + "); another program wrote it", e);
        }
    }

    private static String text(JsonNode o, String field) {
        JsonNode v = o.get(field);
        return v == null || v.isNull() ? null : v.asString();
    }
}
