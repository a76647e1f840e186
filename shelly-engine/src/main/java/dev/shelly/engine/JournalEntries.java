package dev.shelly.engine;

import dev.shelly.agent.Answer;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.Usage;
import dev.shelly.storage.internal.ChatJson;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The entries of a session's turn journal, as compact JSON objects with {@code type} first;
 * messages and results in the session file's own codec ({@link ChatJson}).
 * <ul>
 *   <li>{@code {"type":"turn","turn":N,"id":TURN_ID,"input":[messages]}} before the first model
 *       call ({@code input} empty when the turn goes on after decisions);
 *   <li>{@code {"type":"model","run":RUN_ID,"agent":NAME,"message":MSG,"usage":{...},...}} once a
 *       response is received, before anything is done with it;
 *   <li>{@code {"type":"started","run":RUN_ID,"call":CALL_ID,"tool":NAME,"key":KEY,"idempotent":B,
 *       "agent":NAME,"arguments":TEXT}} before a tool's handler runs (the arguments it runs with);
 *   <li>{@code {"type":"finished","run":RUN_ID,"call":CALL_ID,"result":RESULT}} after it returned;
 *   <li>{@code {"type":"child","run":RUN_ID,"parent":RUN_ID,"call":CALL_ID,"agent":NAME,"path":P}}
 *       when a run starts under another;
 *   <li>{@code {"type":"decision","call":PENDING_ID,"answer":{...}}} when a waiting call is answered
 *       while the journal is open;
 *   <li>{@code {"type":"cancelled","run":RUN_ID}} when one run of the turn is cancelled;
 *   <li>{@code {"type":"end"}} when the turn ended, just before the save that compacts the journal.
 * </ul>
 */
final class JournalEntries {
    private final JsonMapper json;
    private final ChatJson codec;

    JournalEntries(JsonMapper json) {
        this.json = json;
        this.codec = new ChatJson(json);
    }

    ChatJson codec() {
        return codec;
    }

    private ObjectNode entry(String type) {
        return json.createObjectNode().put("type", type);
    }

    private String text(ObjectNode node) {
        return json.writeValueAsString(node);
    }

    String turn(long turn, String id, List<Message> input) {
        ObjectNode n = entry("turn").put("turn", turn).put("id", id);
        n.set("input", codec.encode(input));
        return text(n);
    }

    String model(String run, String agent, ModelResponse response) {
        ObjectNode n = entry("model").put("run", run).put("agent", agent);
        n.set("message", codec.encode(response.message()));
        Usage u = response.usage();
        n.putObject("usage").put("input_tokens", u.inputTokens()).put("output_tokens", u.outputTokens())
                .put("cache_read_tokens", u.cacheReadTokens()).put("cache_write_tokens", u.cacheWriteTokens());
        n.put("stop_reason", response.stopReason().name());
        putIfSet(n, "provider_stop_reason", response.providerStopReason());
        putIfSet(n, "model", response.model());
        putIfSet(n, "response_id", response.responseId());
        putIfSet(n, "provider", response.provider());
        return text(n);
    }

    private static void putIfSet(ObjectNode n, String field, String value) {
        if (value != null) {
            n.put(field, value);
        }
    }

    String started(String run, String agent, ToolCall call, String key, boolean idempotent) {
        return text(entry("started").put("run", run).put("call", call.id()).put("tool", call.name()).put("key", key)
                .put("idempotent", idempotent).put("agent", agent).put("arguments", call.arguments()));
    }

    String finished(String run, String call, ToolResult result) {
        ObjectNode n = entry("finished").put("run", run).put("call", call);
        n.set("result", codec.encodeResult(result));
        return text(n);
    }

    String child(String run, String parent, String call, String agent, String path) {
        ObjectNode n = entry("child").put("run", run).put("parent", parent);
        if (call != null) {
            n.put("call", call);
        }
        return text(n.put("agent", agent).put("path", path));
    }

    String decision(String pendingId, Answer answer) {
        ObjectNode n = entry("decision").put("call", pendingId);
        n.set("answer", codec.encodeAnswer(answer));
        return text(n);
    }

    String cancelled(String run) {
        return text(entry("cancelled").put("run", run));
    }

    String end() {
        return text(entry("end"));
    }

    // ------------------------------------------------------------------ reading

    JsonNode read(String entry) {
        return json.readTree(entry);
    }

    Message message(JsonNode node) {
        return codec.decode(node);
    }

    ModelResponse response(JsonNode n) {
        JsonNode u = n.path("usage");
        Usage usage = new Usage(u.path("input_tokens").asLong(), u.path("output_tokens").asLong(),
                u.path("cache_read_tokens").asLong(), u.path("cache_write_tokens").asLong());
        return new ModelResponse(codec.decode(n.get("message")), usage,
                StopReason.valueOf(n.path("stop_reason").asString(StopReason.END_TURN.name())),
                optional(n, "provider_stop_reason"), optional(n, "model"), optional(n, "response_id"),
                optional(n, "provider"));
    }

    ToolResult result(JsonNode n) {
        return codec.decodeResult(n);
    }

    Answer answer(JsonNode n) {
        return codec.decodeAnswer(n);
    }

    static String optional(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? null : v.asString();
    }
}
