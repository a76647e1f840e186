package dev.shelly.durable;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A strict emulation of two model APIs on one local HTTP server: OpenAI's Chat Completions
 * ({@code POST /v1/chat/completions}) and Anthropic's Messages ({@code POST /v1/messages}). It
 * answers by {@link TurnScript}: the agent is read from the system prompt, the session from the
 * first user message, the step from the count of assistant messages since the last user message,
 * so any process that sends the same conversation gets the same reply.
 *
 * <p>Every request is checked as the real APIs check it, and more: the roles and their order, the
 * fields each message may carry (nothing else: no id or timestamp of Shelly's own), every tool
 * call answered exactly once by a result before the conversation goes on, no result without its
 * call, and every assistant message equal to what this emulator answered at that step. A request
 * that fails a check is answered with HTTP 400 and kept with its problems. Every request is kept,
 * in the order received, for the test to count and compare.
 */
final class ModelEmulator implements AutoCloseable {
    static final JsonMapper JSON = JsonMapper.builder().build();

    /**
     * One request received.
     *
     * @param seq its number, from 1, in the order received
     * @param format {@code openai} or {@code anthropic}
     * @param session the session token of its first user message (null when unreadable)
     * @param agent {@code lead} or {@code helper} (null when unreadable)
     * @param turn the agent's user messages so far
     * @param step its assistant messages since the last user message
     * @param body the request body
     * @param problems what the checks found wrong; empty for a valid request
     */
    record Request(long seq, String format, String session, String agent, int turn, int step, JsonNode body,
            List<String> problems) {
        String key() {
            return TurnScript.key(agent, turn, step);
        }
    }

    /** A message of either format, read into one shape for the checks both formats share. */
    private record Msg(String role, String text, List<Called> calls, List<Result> results) {}

    private record Called(String id, String name, JsonNode input) {}

    private record Result(String callId, String text) {}

    private final HttpServer server;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final AtomicLong seq = new AtomicLong();
    private final List<Request> requests = new ArrayList<>();

    private ModelEmulator() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.setExecutor(threads);
        server.createContext("/", this::handle);
        server.start();
    }

    static ModelEmulator start() throws IOException {
        return new ModelEmulator();
    }

    /** The base URL a provider of this format is configured with. */
    String baseUrl(String format) {
        String root = "http://127.0.0.1:" + server.getAddress().getPort();
        return format.equals("anthropic") ? root + "/" : root + "/v1";
    }

    /** Every request so far, in the order received. */
    List<Request> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            String format = path.equals("/v1/chat/completions") ? "openai" : path.equals("/v1/messages") ? "anthropic" : null;
            if (format == null || !exchange.getRequestMethod().equals("POST")) {
                respond(exchange, 404, "application/json", "{\"error\":{\"message\":\"no such endpoint\"}}");
                return;
            }
            byte[] raw = exchange.getRequestBody().readAllBytes();
            JsonNode body;
            try {
                body = JSON.readTree(raw);
            } catch (RuntimeException e) {
                respond(exchange, 400, "application/json", error(format, "the body is not JSON: " + e.getMessage()));
                return;
            }
            List<String> problems = new ArrayList<>();
            checkHeaders(exchange, format, problems);
            List<Msg> messages = format.equals("openai") ? readOpenAi(body, problems) : readAnthropic(body, problems);
            String system = format.equals("openai") ? openAiSystem(body) : anthropicSystem(body);
            String agent = system.contains("You are the helper") ? "helper" : system.contains("You are the lead") ? "lead" : null;
            if (agent == null) {
                problems.add("no agent recognised in the system prompt: " + system);
            }
            String session = null;
            int turn = 0;
            int step = 0;
            for (Msg m : messages) {
                if (m.role().equals("user") && !m.text().isEmpty()) {
                    if (session == null) {
                        String[] words = m.text().trim().split(" ");
                        session = words[words.length - 1];
                    }
                    turn++;
                    step = 0;
                } else if (m.role().equals("assistant")) {
                    if (agent != null && session != null) {
                        checkScripted(format, agent, turn, step, session, m, problems);
                    }
                    step++;
                }
            }
            checkPairs(format, messages, problems);
            TurnScript.Step reply = agent == null || session == null ? null : TurnScript.step(agent, turn, step, session);
            if (reply == null && problems.isEmpty()) {
                problems.add("the script has no step " + TurnScript.key(agent, turn, step));
            }
            long n = seq.incrementAndGet();
            synchronized (requests) {
                requests.add(new Request(n, format, session, agent, turn, step, body, List.copyOf(problems)));
            }
            if (!problems.isEmpty()) {
                respond(exchange, 400, "application/json", error(format, String.join("; ", problems)));
                return;
            }
            List<String[]> calls = new ArrayList<>();
            for (int i = 0; i < reply.calls().size(); i++) {
                TurnScript.Call c = reply.calls().get(i);
                calls.add(new String[] {TurnScript.callId(format, agent, turn, step, i), c.tool(), c.arguments()});
            }
            boolean stream = body.path("stream").asBoolean(false);
            if (format.equals("openai")) {
                respond(exchange, 200, stream ? "text/event-stream" : "application/json",
                        stream ? openAiStream(n, reply.text(), calls) : openAiWhole(n, reply.text(), calls));
            } else {
                respond(exchange, 200, stream ? "text/event-stream" : "application/json",
                        stream ? anthropicStream(n, reply.text(), calls) : anthropicWhole(n, reply.text(), calls));
            }
        }
    }

    private static void checkHeaders(HttpExchange exchange, String format, List<String> problems) {
        var headers = exchange.getRequestHeaders();
        if (format.equals("openai") && !String.valueOf(headers.getFirst("Authorization")).startsWith("Bearer ")) {
            problems.add("no bearer token");
        }
        if (format.equals("anthropic") && (headers.getFirst("x-api-key") == null || headers.getFirst("anthropic-version") == null)) {
            problems.add("no x-api-key or anthropic-version header");
        }
    }

    // ---- OpenAI Chat Completions: reading and checking ----

    private static final Set<String> OPENAI_TOP = Set.of("model", "messages", "tools", "stream", "stream_options",
            "max_tokens", "max_completion_tokens", "temperature", "tool_choice", "parallel_tool_calls", "user");

    private static List<Msg> readOpenAi(JsonNode body, List<String> problems) {
        onlyFields(body, OPENAI_TOP, "the body", problems);
        if (!body.path("model").isString()) {
            problems.add("no model");
        }
        for (JsonNode t : body.path("tools")) {
            onlyFields(t, Set.of("type", "function"), "a tool", problems);
            if (!t.path("type").asString("").equals("function") || !t.path("function").path("name").isString()
                    || !t.path("function").path("parameters").isObject()) {
                problems.add("a malformed tool: " + t);
            }
        }
        List<Msg> out = new ArrayList<>();
        JsonNode messages = body.path("messages");
        if (!messages.isArray() || messages.isEmpty()) {
            problems.add("no messages");
            return out;
        }
        for (int i = 0; i < messages.size(); i++) {
            JsonNode m = messages.get(i);
            String role = m.path("role").asString("");
            String where = "messages[" + i + "] (" + role + ")";
            switch (role) {
                case "system" -> {
                    onlyFields(m, Set.of("role", "content"), where, problems);
                    if (i != 0) {
                        problems.add(where + ": a system message after the first");
                    }
                    out.add(new Msg(role, m.path("content").asString(""), List.of(), List.of()));
                }
                case "user" -> {
                    onlyFields(m, Set.of("role", "content"), where, problems);
                    String text = m.path("content").isString() ? m.path("content").asString() : partsText(m.path("content"));
                    if (text.isEmpty()) {
                        problems.add(where + ": no content");
                    }
                    out.add(new Msg(role, text, List.of(), List.of()));
                }
                case "assistant" -> {
                    onlyFields(m, Set.of("role", "content", "tool_calls"), where, problems);
                    List<Called> calls = new ArrayList<>();
                    for (JsonNode c : m.path("tool_calls")) {
                        onlyFields(c, Set.of("id", "type", "function"), where + " tool call", problems);
                        onlyFields(c.path("function"), Set.of("name", "arguments"), where + " function", problems);
                        JsonNode input = null;
                        try {
                            input = JSON.readTree(c.path("function").path("arguments").asString(""));
                        } catch (RuntimeException e) {
                            problems.add(where + ": arguments that are not JSON: " + c);
                        }
                        if (!c.path("type").asString("").equals("function") || !c.path("id").isString()) {
                            problems.add(where + ": a malformed tool call: " + c);
                        }
                        calls.add(new Called(c.path("id").asString(""), c.path("function").path("name").asString(""), input));
                    }
                    String text = m.path("content").isString() ? m.path("content").asString() : "";
                    if (calls.isEmpty() && text.isEmpty()) {
                        problems.add(where + ": neither content nor tool calls");
                    }
                    out.add(new Msg(role, text, calls, List.of()));
                }
                case "tool" -> {
                    onlyFields(m, Set.of("role", "tool_call_id", "content"), where, problems);
                    if (!m.path("tool_call_id").isString() || !m.path("content").isString()) {
                        problems.add(where + ": a malformed tool message");
                    }
                    out.add(new Msg(role, "", List.of(),
                            List.of(new Result(m.path("tool_call_id").asString(""), m.path("content").asString("")))));
                }
                default -> problems.add(where + ": an unknown role");
            }
        }
        return out;
    }

    private static String openAiSystem(JsonNode body) {
        JsonNode first = body.path("messages").path(0);
        return first.path("role").asString("").equals("system") ? first.path("content").asString("") : "";
    }

    private static String partsText(JsonNode parts) {
        StringBuilder sb = new StringBuilder();
        for (JsonNode p : parts) {
            if (p.path("type").asString("").equals("text")) {
                sb.append(p.path("text").asString(""));
            }
        }
        return sb.toString();
    }

    // ---- Anthropic Messages: reading and checking ----

    private static final Set<String> ANTHROPIC_TOP = Set.of("model", "max_tokens", "system", "messages", "tools", "stream",
            "temperature", "tool_choice", "metadata");

    private static List<Msg> readAnthropic(JsonNode body, List<String> problems) {
        onlyFields(body, ANTHROPIC_TOP, "the body", problems);
        if (!body.path("model").isString() || body.path("max_tokens").asInt(0) <= 0) {
            problems.add("no model or no positive max_tokens");
        }
        for (JsonNode t : body.path("tools")) {
            onlyFields(t, Set.of("name", "description", "input_schema", "cache_control"), "a tool", problems);
            if (!t.path("name").isString() || !t.path("input_schema").isObject()) {
                problems.add("a malformed tool: " + t);
            }
        }
        List<Msg> out = new ArrayList<>();
        JsonNode messages = body.path("messages");
        if (!messages.isArray() || messages.isEmpty()) {
            problems.add("no messages");
            return out;
        }
        for (int i = 0; i < messages.size(); i++) {
            JsonNode m = messages.get(i);
            String role = m.path("role").asString("");
            String where = "messages[" + i + "] (" + role + ")";
            onlyFields(m, Set.of("role", "content"), where, problems);
            if (!role.equals(i % 2 == 0 ? "user" : "assistant")) {
                problems.add(where + ": roles must alternate, starting with user");
            }
            JsonNode content = m.path("content");
            if (content.isString()) {
                out.add(new Msg(role, content.asString(), List.of(), List.of()));
                continue;
            }
            if (!content.isArray() || content.isEmpty()) {
                problems.add(where + ": no content");
                continue;
            }
            StringBuilder text = new StringBuilder();
            List<Called> calls = new ArrayList<>();
            List<Result> results = new ArrayList<>();
            boolean afterOther = false;
            for (JsonNode b : content) {
                String type = b.path("type").asString("");
                switch (type) {
                    case "text" -> {
                        onlyFields(b, Set.of("type", "text", "cache_control"), where + " text", problems);
                        text.append(b.path("text").asString(""));
                        afterOther = true;
                    }
                    case "tool_use" -> {
                        onlyFields(b, Set.of("type", "id", "name", "input", "cache_control"), where + " tool_use", problems);
                        if (!role.equals("assistant") || !b.path("input").isObject() || !b.path("id").isString()) {
                            problems.add(where + ": a malformed or misplaced tool_use: " + b);
                        }
                        calls.add(new Called(b.path("id").asString(""), b.path("name").asString(""), b.path("input")));
                        afterOther = true;
                    }
                    case "tool_result" -> {
                        onlyFields(b, Set.of("type", "tool_use_id", "content", "is_error", "cache_control"),
                                where + " tool_result", problems);
                        if (!role.equals("user") || afterOther) {
                            problems.add(where + ": a tool_result outside a user turn or after other content");
                        }
                        JsonNode c = b.path("content");
                        results.add(new Result(b.path("tool_use_id").asString(""), c.isString() ? c.asString() : partsText(c)));
                    }
                    default -> problems.add(where + ": an unknown block type '" + type + "'");
                }
            }
            out.add(new Msg(role, text.toString(), calls, results));
        }
        return out;
    }

    private static String anthropicSystem(JsonNode body) {
        JsonNode system = body.path("system");
        return system.isString() ? system.asString() : partsText(system);
    }

    // ---- checks both formats share ----

    private static void onlyFields(JsonNode node, Set<String> allowed, String where, List<String> problems) {
        if (!node.isObject()) {
            problems.add(where + ": not an object");
            return;
        }
        for (String name : node.propertyNames()) {
            if (!allowed.contains(name)) {
                problems.add(where + ": an unexpected field '" + name + "'");
            }
        }
    }

    /** Every call answered exactly once, by results right after it; no result without its call; ids unique. */
    private static void checkPairs(String format, List<Msg> messages, List<String> problems) {
        Set<String> seen = new HashSet<>();
        Set<String> open = new LinkedHashSet<>();
        for (int i = 0; i < messages.size(); i++) {
            Msg m = messages.get(i);
            if (format.equals("openai")) {
                if (m.role().equals("tool")) {
                    String id = m.results().getFirst().callId();
                    if (!open.remove(id)) {
                        problems.add("message " + i + ": a result for call '" + id + "' that is not open");
                    }
                    continue;
                }
                if (!open.isEmpty()) {
                    problems.add("message " + i + " (" + m.role() + ") comes while calls " + open + " are unanswered");
                    open.clear();
                }
            } else {
                List<String> answered = new ArrayList<>();
                m.results().forEach(r -> answered.add(r.callId()));
                if (!new HashSet<>(answered).equals(open) || answered.size() != open.size()) {
                    problems.add("message " + i + " (" + m.role() + ") answers " + answered + " where calls " + open
                            + " are open");
                }
                open.clear();
            }
            for (Called c : m.calls()) {
                if (!seen.add(c.id())) {
                    problems.add("message " + i + ": a second tool call with id '" + c.id() + "'");
                }
                open.add(c.id());
            }
        }
        if (!open.isEmpty()) {
            problems.add("the request ends with calls " + open + " unanswered");
        }
        String last = messages.isEmpty() ? "" : messages.getLast().role();
        if (!last.equals("user") && !last.equals("tool")) {
            problems.add("the request ends with a " + last + " message");
        }
    }

    /** An assistant message must be what this emulator answered at its step. */
    private static void checkScripted(String format, String agent, int turn, int step, String session, Msg m,
            List<String> problems) {
        TurnScript.Step scripted = TurnScript.step(agent, turn, step, session);
        String where = "the assistant message of step " + TurnScript.key(agent, turn, step);
        if (scripted == null) {
            problems.add(where + ": the script has no such step");
            return;
        }
        String text = scripted.text() == null ? "" : scripted.text();
        if (!m.text().equals(text)) {
            problems.add(where + ": text '" + m.text() + "' instead of '" + text + "'");
        }
        if (m.calls().size() != scripted.calls().size()) {
            problems.add(where + ": " + m.calls().size() + " tool calls instead of " + scripted.calls().size());
            return;
        }
        for (int i = 0; i < m.calls().size(); i++) {
            Called c = m.calls().get(i);
            TurnScript.Call s = scripted.calls().get(i);
            if (!c.id().equals(TurnScript.callId(format, agent, turn, step, i)) || !c.name().equals(s.tool())
                    || c.input() == null || !c.input().equals(JSON.readTree(s.arguments()))) {
                problems.add(where + ": tool call " + i + " is " + c + " instead of " + s);
            }
        }
    }

    // ---- answers ----

    private static String error(String format, String message) {
        ObjectNode o = JSON.createObjectNode();
        if (format.equals("anthropic")) {
            o.put("type", "error").putObject("error").put("type", "invalid_request_error").put("message", message);
        } else {
            o.putObject("error").put("type", "invalid_request_error").put("message", message);
        }
        return o.toString();
    }

    private static void respond(HttpExchange exchange, int code, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", type);
        exchange.sendResponseHeaders(code, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static String openAiWhole(long n, String text, List<String[]> calls) {
        ObjectNode o = JSON.createObjectNode().put("id", "chatcmpl-" + n).put("object", "chat.completion").put("model", "emu");
        ObjectNode choice = o.putArray("choices").addObject().put("index", 0);
        ObjectNode message = choice.putObject("message").put("role", "assistant");
        if (text != null) {
            message.put("content", text);
        } else {
            message.putNull("content");
            ArrayNode tc = message.putArray("tool_calls");
            for (String[] c : calls) {
                ObjectNode call = tc.addObject().put("id", c[0]).put("type", "function");
                call.putObject("function").put("name", c[1]).put("arguments", c[2]);
            }
        }
        choice.put("finish_reason", text != null ? "stop" : "tool_calls");
        o.putObject("usage").put("prompt_tokens", 100).put("completion_tokens", 10).put("total_tokens", 110);
        return o.toString();
    }

    private static String openAiStream(long n, String text, List<String[]> calls) {
        String id = "chatcmpl-" + n;
        StringBuilder sse = new StringBuilder();
        if (text != null) {
            sse.append(openAiChunk(id, JSON.createObjectNode().put("role", "assistant").put("content", ""), null));
            for (String piece : text.split("(?<= )")) {
                sse.append(openAiChunk(id, JSON.createObjectNode().put("content", piece), null));
            }
            sse.append(openAiChunk(id, JSON.createObjectNode(), "stop"));
        } else {
            for (int i = 0; i < calls.size(); i++) {
                String[] c = calls.get(i);
                ObjectNode start = JSON.createObjectNode().put("index", i).put("id", c[0]).put("type", "function");
                start.putObject("function").put("name", c[1]).put("arguments", "");
                ObjectNode d = JSON.createObjectNode().put("role", "assistant");
                d.putArray("tool_calls").add(start);
                sse.append(openAiChunk(id, d, null));
                int half = c[2].length() / 2;
                for (String part : List.of(c[2].substring(0, half), c[2].substring(half))) {
                    ObjectNode frag = JSON.createObjectNode().put("index", i);
                    frag.putObject("function").put("arguments", part);
                    ObjectNode fd = JSON.createObjectNode();
                    fd.putArray("tool_calls").add(frag);
                    sse.append(openAiChunk(id, fd, null));
                }
            }
            sse.append(openAiChunk(id, JSON.createObjectNode(), "tool_calls"));
        }
        ObjectNode usage = JSON.createObjectNode().put("id", id).put("object", "chat.completion.chunk").put("model", "emu");
        usage.putArray("choices");
        usage.putObject("usage").put("prompt_tokens", 100).put("completion_tokens", 10).put("total_tokens", 110);
        sse.append("data: ").append(usage).append("\n\n");
        return sse.append("data: [DONE]\n\n").toString();
    }

    private static String openAiChunk(String id, ObjectNode delta, String finish) {
        ObjectNode o = JSON.createObjectNode().put("id", id).put("object", "chat.completion.chunk").put("model", "emu");
        ObjectNode choice = o.putArray("choices").addObject().put("index", 0);
        choice.set("delta", delta);
        if (finish == null) {
            choice.putNull("finish_reason");
        } else {
            choice.put("finish_reason", finish);
        }
        return "data: " + o + "\n\n";
    }

    private static String anthropicWhole(long n, String text, List<String[]> calls) {
        ObjectNode o = JSON.createObjectNode().put("id", "msg_" + n).put("type", "message").put("role", "assistant")
                .put("model", "emu");
        ArrayNode content = o.putArray("content");
        if (text != null) {
            content.addObject().put("type", "text").put("text", text);
        }
        for (String[] c : calls) {
            content.addObject().put("type", "tool_use").put("id", c[0]).put("name", c[1]).set("input", JSON.readTree(c[2]));
        }
        o.put("stop_reason", text != null ? "end_turn" : "tool_use").putNull("stop_sequence");
        o.putObject("usage").put("input_tokens", 100).put("output_tokens", 10);
        return o.toString();
    }

    private static String anthropicStream(long n, String text, List<String[]> calls) {
        StringBuilder sse = new StringBuilder();
        ObjectNode start = JSON.createObjectNode().put("type", "message_start");
        ObjectNode message = start.putObject("message").put("id", "msg_" + n).put("type", "message").put("role", "assistant")
                .put("model", "emu");
        message.putArray("content");
        message.putNull("stop_reason").putNull("stop_sequence");
        message.putObject("usage").put("input_tokens", 100).put("output_tokens", 1);
        event(sse, "message_start", start);
        int index = 0;
        if (text != null) {
            ObjectNode block = JSON.createObjectNode().put("type", "content_block_start").put("index", index);
            block.putObject("content_block").put("type", "text").put("text", "");
            event(sse, "content_block_start", block);
            for (String piece : text.split("(?<= )")) {
                ObjectNode delta = JSON.createObjectNode().put("type", "content_block_delta").put("index", index);
                delta.putObject("delta").put("type", "text_delta").put("text", piece);
                event(sse, "content_block_delta", delta);
            }
            event(sse, "content_block_stop", JSON.createObjectNode().put("type", "content_block_stop").put("index", index));
            index++;
        }
        for (String[] c : calls) {
            ObjectNode block = JSON.createObjectNode().put("type", "content_block_start").put("index", index);
            block.putObject("content_block").put("type", "tool_use").put("id", c[0]).put("name", c[1]).putObject("input");
            event(sse, "content_block_start", block);
            int half = c[2].length() / 2;
            for (String part : List.of(c[2].substring(0, half), c[2].substring(half))) {
                ObjectNode delta = JSON.createObjectNode().put("type", "content_block_delta").put("index", index);
                delta.putObject("delta").put("type", "input_json_delta").put("partial_json", part);
                event(sse, "content_block_delta", delta);
            }
            event(sse, "content_block_stop", JSON.createObjectNode().put("type", "content_block_stop").put("index", index));
            index++;
        }
        ObjectNode end = JSON.createObjectNode().put("type", "message_delta");
        end.putObject("delta").put("stop_reason", text != null ? "end_turn" : "tool_use").putNull("stop_sequence");
        end.putObject("usage").put("output_tokens", 10);
        event(sse, "message_delta", end);
        event(sse, "message_stop", JSON.createObjectNode().put("type", "message_stop"));
        return sse.toString();
    }

    private static void event(StringBuilder sse, String name, ObjectNode data) {
        sse.append("event: ").append(name).append('\n').append("data: ").append(data).append("\n\n");
    }
}
