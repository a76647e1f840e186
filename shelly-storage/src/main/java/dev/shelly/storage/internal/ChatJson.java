package dev.shelly.storage.internal;

import dev.shelly.agent.Answer;
import dev.shelly.agent.Approvals;
import dev.shelly.agent.PendingCall;
import dev.shelly.agent.ToolPolicy;
import dev.shelly.chats.Image;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.Usage;
import dev.shelly.storage.SessionRecord;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Messages and whole sessions to and from JSON, as session stores keep them (the file store and
 * the Redis store write the same JSON).
 *
 * <p>Every built-in part round-trips exactly, images as base64, thinking with its signature.
 * Metadata keeps JSON values (text, numbers, booleans, lists, maps); a {@link Usage} is written
 * as an object of its four counts and a {@link StopReason} as its name, and both read back as
 * those plain values (replies carry no usage or stop reason since the typed model call, but
 * sessions saved before it still load, their {@code usage} and {@code stop_reason} keys as plain
 * values); any other value is stored as its text. Parts of an application's own kinds come back
 * as {@link OpaquePart}.
 */
public final class ChatJson {
    private final JsonMapper json;

    /**
     * A codec using the given mapper.
     *
     * @param json the mapper
     */
    public ChatJson(JsonMapper json) {
        this.json = json;
    }

    /**
     * Encodes messages.
     *
     * @param messages the messages
     * @return a JSON array
     */
    public ArrayNode encode(List<Message> messages) {
        ArrayNode array = json.createArrayNode();
        for (Message m : messages) {
            array.add(encode(m));
        }
        return array;
    }

    /**
     * Encodes one message.
     *
     * @param m the message
     * @return a JSON object
     */
    public ObjectNode encode(Message m) {
        ObjectNode node = json.createObjectNode();
        node.put("sender", m.sender());
        node.put("role", m.role().wireName());
        ArrayNode parts = node.putArray("parts");
        for (Part p : m.parts()) {
            parts.add(encodePart(p));
        }
        if (!m.metadata().isEmpty()) {
            ObjectNode meta = node.putObject("metadata");
            m.metadata().forEach((k, v) -> meta.set(k, encodeValue(v)));
        }
        return node;
    }

    private ObjectNode encodePart(Part p) {
        ObjectNode n = json.createObjectNode();
        switch (p) {
            case Text t -> n.put("type", "text").put("text", t.text());
            case Image i -> {
                n.put("type", "image");
                if (i.isUrl()) {
                    n.put("url", i.url());
                } else {
                    n.put("data", i.base64());
                }
                if (i.mediaType() != null) {
                    n.put("media_type", i.mediaType());
                }
            }
            case ToolCall c -> n.put("type", "tool_call").put("id", c.id()).put("name", c.name())
                    .put("arguments", c.arguments());
            case ToolResult r -> {
                n.put("type", "tool_result").put("tool_call_id", r.toolCallId()).put("is_error", r.isError());
                ArrayNode content = n.putArray("content");
                for (Part c : r.content()) {
                    content.add(encodePart(c));
                }
            }
            case Thinking t -> {
                n.put("type", "thinking").put("text", t.text());
                if (t.signature() != null) {
                    n.put("signature", t.signature());
                }
                if (t.redacted()) {
                    n.put("redacted", true);
                }
                if (t.origin() != null) {
                    n.put("origin", t.origin());
                }
            }
            case OpaquePart o -> n.put("type", "opaque").put("kind", o.kind()).put("value", o.value());
            default -> n.put("type", "opaque").put("kind", p.kind()).put("value", p.toString());
        }
        return n;
    }

    private JsonNode encodeValue(Object v) {
        return switch (v) {
            case Usage u -> json.createObjectNode()
                    .put("input_tokens", u.inputTokens())
                    .put("output_tokens", u.outputTokens())
                    .put("cache_read_tokens", u.cacheReadTokens())
                    .put("cache_write_tokens", u.cacheWriteTokens());
            case StopReason r -> json.getNodeFactory().stringNode(r.name());
            case String s -> json.getNodeFactory().stringNode(s);
            case Boolean b -> json.getNodeFactory().booleanNode(b);
            case Integer i -> json.getNodeFactory().numberNode(i);
            case Long l -> json.getNodeFactory().numberNode(l);
            case Double d -> json.getNodeFactory().numberNode(d);
            case Number n -> json.getNodeFactory().numberNode(n.doubleValue());
            case List<?> list -> {
                ArrayNode a = json.createArrayNode();
                list.forEach(x -> a.add(x == null ? json.nullNode() : encodeValue(x)));
                yield a;
            }
            case Map<?, ?> map -> {
                ObjectNode o = json.createObjectNode();
                map.forEach((k, x) -> o.set(String.valueOf(k), x == null ? json.nullNode() : encodeValue(x)));
                yield o;
            }
            default -> json.getNodeFactory().stringNode(v.toString());
        };
    }

    /**
     * Encodes a whole session as its stores keep it: {@code id}, {@code entry_agent},
     * {@code created}, {@code updated}, {@code version}, {@code usage}, {@code cost}
     * ({@code usd} as a decimal string, {@code unpriced_tokens}) and {@code messages}.
     *
     * @param session the session
     * @return a JSON object
     */
    public ObjectNode encodeRecord(SessionRecord session) {
        ObjectNode root = json.createObjectNode();
        root.put("id", session.id());
        root.put("entry_agent", session.entryAgent());
        root.put("created", session.created().toString());
        root.put("updated", session.updated().toString());
        root.put("version", session.version());
        root.putObject("usage")
                .put("input_tokens", session.usage().inputTokens())
                .put("output_tokens", session.usage().outputTokens())
                .put("cache_read_tokens", session.usage().cacheReadTokens())
                .put("cache_write_tokens", session.usage().cacheWriteTokens());
        root.putObject("cost")
                .put("usd", session.cost().usd().toPlainString())
                .put("unpriced_tokens", session.cost().unpricedTokens());
        root.set("messages", encode(session.messages()));
        if (!session.approvals().isEmpty()) {
            root.set("approvals", encodeApprovals(session.approvals()));
        }
        return root;
    }

    /**
     * Encodes what a paused session waits for.
     *
     * @param state the state
     * @return a JSON object
     */
    public ObjectNode encodeApprovals(Approvals.State state) {
        ObjectNode root = json.createObjectNode();
        ArrayNode frames = root.putArray("frames");
        for (Approvals.Frame f : state.frames()) {
            ObjectNode n = frames.addObject();
            n.put("path", f.path()).put("agent", f.agent());
            if (!f.chat().isEmpty()) {
                n.set("chat", encode(f.chat()));
            }
            ArrayNode held = n.putArray("held");
            f.held().forEach(r -> held.add(encodePart(r)));
            ArrayNode pending = n.putArray("pending");
            for (PendingCall p : f.pending()) {
                pending.addObject().put("id", p.id()).put("agent", p.agent()).put("kind", p.kind().name())
                        .put("reason", p.reason()).put("since", p.since().toString()).set("call", encodePart(p.call()));
            }
            ArrayNode delegated = n.putArray("delegated");
            f.delegated().forEach(c -> delegated.add(encodePart(c)));
            if (f.finished() != null) {
                n.put("finished", f.finished());
            }
        }
        ObjectNode answers = root.putObject("answers");
        state.answers().forEach((id, a) -> {
            ObjectNode n = answers.putObject(id);
            switch (a) {
                case Answer.Approve ap -> n.put("type", "approve").put("scope", ap.scope().name());
                case Answer.Deny d -> n.put("type", "deny").put("reason", d.reason()).put("scope", d.scope().name());
                case Answer.Edit e -> n.put("type", "edit").put("arguments", e.arguments());
                case Answer.Reply r -> n.put("type", "reply").put("text", r.text());
            }
        });
        ArrayNode grants = root.putArray("session_grants");
        for (Approvals.Grant g : state.sessionGrants()) {
            grants.addObject().put("agent", g.agent()).put("tool", g.tool()).put("permission", g.permission().name());
        }
        return root;
    }

    /**
     * Decodes what {@link #encodeApprovals} wrote.
     *
     * @param root the JSON object, or null for a session that waits for nothing
     * @param where names the source in error messages, e.g. a file
     * @return the state
     * @throws IllegalArgumentException naming the source and the offending field
     */
    public Approvals.State decodeApprovals(JsonNode root, String where) {
        if (root == null || root.isNull()) {
            return Approvals.State.EMPTY;
        }
        String at = where + ": approvals";
        try {
            List<Approvals.Frame> frames = new ArrayList<>();
            for (JsonNode n : required(root, "frames")) {
                List<ToolResult> held = new ArrayList<>();
                for (JsonNode h : n.path("held")) {
                    held.add((ToolResult) decodePart(h));
                }
                List<PendingCall> pending = new ArrayList<>();
                for (JsonNode p : n.path("pending")) {
                    pending.add(new PendingCall(required(p, "id").asString(), required(p, "agent").asString(),
                            (ToolCall) decodePart(required(p, "call")), PendingCall.Kind.valueOf(required(p, "kind").asString()),
                            required(p, "reason").asString(), Instant.parse(required(p, "since").asString())));
                }
                List<ToolCall> delegated = new ArrayList<>();
                for (JsonNode c : n.path("delegated")) {
                    delegated.add((ToolCall) decodePart(c));
                }
                frames.add(new Approvals.Frame(required(n, "path").asString(), required(n, "agent").asString(),
                        n.has("chat") ? decode(n.get("chat"), at + ".chat") : List.of(), held, pending, delegated,
                        n.hasNonNull("finished") ? n.get("finished").asString() : null));
            }
            Map<String, Answer> answers = new LinkedHashMap<>();
            JsonNode given = root.path("answers");
            for (String id : given.propertyNames()) {
                JsonNode a = given.get(id);
                String type = required(a, "type").asString();
                answers.put(id, switch (type) {
                    case "approve" -> new Answer.Approve(Answer.Scope.valueOf(required(a, "scope").asString()));
                    case "deny" -> new Answer.Deny(required(a, "reason").asString(),
                            Answer.Scope.valueOf(required(a, "scope").asString()));
                    case "edit" -> new Answer.Edit(required(a, "arguments").asString());
                    case "reply" -> new Answer.Reply(required(a, "text").asString());
                    default -> throw new IllegalArgumentException("unknown answer type '" + type + "' for call '" + id + "'");
                });
            }
            List<Approvals.Grant> grants = new ArrayList<>();
            for (JsonNode g : root.path("session_grants")) {
                grants.add(new Approvals.Grant(required(g, "agent").asString(), required(g, "tool").asString(),
                        ToolPolicy.Permission.valueOf(required(g, "permission").asString())));
            }
            return new Approvals.State(frames, answers, grants);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(at + ": " + e.getMessage(), e);
        }
    }

    /**
     * Decodes a session written by {@link #encodeRecord}. The {@code id} inside is not read: a
     * session is the one of the key it is stored under. A session saved before versions were
     * kept loads as version 0, its usage the sum of the usage its replies carry; one saved before
     * costs were kept loads with a zero cost.
     *
     * @param id the id it is stored under
     * @param root the JSON object
     * @param where names the source in error messages, e.g. a file
     * @return the session
     * @throws IllegalArgumentException naming the source and the offending message (a malformed
     *     or negative cost included)
     * @throws java.time.format.DateTimeParseException when a timestamp is not an instant
     */
    public SessionRecord decodeRecord(String id, JsonNode root, String where) {
        List<Message> messages = decode(root.get("messages"), where);
        JsonNode usage = root.get("usage");
        JsonNode cost = root.get("cost");
        return new SessionRecord(id, root.path("entry_agent").asString(),
                Instant.parse(root.path("created").asString()), Instant.parse(root.path("updated").asString()),
                messages, root.path("version").asLong(0),
                usage == null || !usage.isObject() ? LegacyUsage.of(messages)
                        : new Usage(usage.path("input_tokens").asLong(), usage.path("output_tokens").asLong(),
                                usage.path("cache_read_tokens").asLong(), usage.path("cache_write_tokens").asLong()),
                cost == null || !cost.isObject() ? Cost.ZERO
                        : new Cost(new BigDecimal(cost.path("usd").asString("0")), cost.path("unpriced_tokens").asLong()),
                decodeApprovals(root.get("approvals"), where));
    }

    /**
     * Decodes messages.
     *
     * @param array a JSON array written by {@link #encode(List)}
     * @param where names the source in error messages, e.g. a file
     * @return the messages
     * @throws IllegalArgumentException naming the source and the offending message
     */
    public List<Message> decode(JsonNode array, String where) {
        if (array == null || !array.isArray()) {
            throw new IllegalArgumentException(where + ": expected an array of messages");
        }
        List<Message> messages = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            String path = where + ": messages[" + i + "]";
            try {
                messages.add(decodeMessage(array.get(i)));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(path + ": " + e.getMessage(), e);
            }
        }
        return messages;
    }

    private Message decodeMessage(JsonNode n) {
        List<Part> parts = new ArrayList<>();
        for (JsonNode p : required(n, "parts")) {
            parts.add(decodePart(p));
        }
        Map<String, Object> meta = new LinkedHashMap<>();
        JsonNode metadata = n.get("metadata");
        if (metadata != null && metadata.isObject()) {
            for (String key : metadata.propertyNames()) {
                JsonNode v = metadata.get(key);
                Object value = decodeValue(v);
                if (value != null) {
                    meta.put(key, value);
                }
            }
        }
        return new Message(required(n, "sender").asString(), Role.parse(required(n, "role").asString()), parts, meta);
    }

    private Part decodePart(JsonNode p) {
        String type = required(p, "type").asString();
        return switch (type) {
            case "text" -> new Text(required(p, "text").asString());
            case "image" -> p.hasNonNull("url")
                    ? new Image(p.get("url").asString(), null, p.hasNonNull("media_type") ? p.get("media_type").asString() : null)
                    : Image.ofBase64(required(p, "data").asString(), required(p, "media_type").asString());
            case "tool_call" -> new ToolCall(required(p, "id").asString(), required(p, "name").asString(),
                    required(p, "arguments").asString());
            case "tool_result" -> {
                List<Part> content = new ArrayList<>();
                for (JsonNode c : required(p, "content")) {
                    content.add(decodePart(c));
                }
                yield new ToolResult(required(p, "tool_call_id").asString(), content, p.path("is_error").asBoolean());
            }
            case "thinking" -> new Thinking(required(p, "text").asString(),
                    p.hasNonNull("signature") ? p.get("signature").asString() : null, p.path("redacted").asBoolean(),
                    p.hasNonNull("origin") ? p.get("origin").asString() : null);
            case "opaque" -> new OpaquePart(required(p, "kind").asString(), required(p, "value").asString());
            default -> throw new IllegalArgumentException("unknown part type '" + type + "'");
        };
    }

    private Object decodeValue(JsonNode v) {
        if (v.isString()) {
            return v.asString();
        }
        if (v.isBoolean()) {
            return v.asBoolean();
        }
        if (v.isIntegralNumber()) {
            return v.canConvertToInt() ? (Object) v.asInt() : (Object) v.asLong();
        }
        if (v.isNumber()) {
            return v.asDouble();
        }
        if (v.isArray()) {
            List<Object> list = new ArrayList<>();
            for (JsonNode x : v) {
                Object value = decodeValue(x);
                if (value != null) {
                    list.add(value);
                }
            }
            return List.copyOf(list);
        }
        if (v.isObject()) {
            Map<String, Object> map = new LinkedHashMap<>();
            for (String key : v.propertyNames()) {
                Object value = decodeValue(v.get(key));
                if (value != null) {
                    map.put(key, value);
                }
            }
            return java.util.Collections.unmodifiableMap(map);
        }
        return null;
    }

    private static JsonNode required(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException("missing field '" + field + "'");
        }
        return v;
    }

}
