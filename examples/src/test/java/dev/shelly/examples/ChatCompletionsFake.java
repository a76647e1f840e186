package dev.shelly.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A fake OpenAI Chat Completions endpoint for MockWebServer: it answers each request with what
 * a function of the request body says, streamed as server-sent events (or as one JSON body when
 * the request does not ask for a stream), and keeps every body it was sent.
 */
final class ChatCompletionsFake extends Dispatcher {
    static final JsonMapper JSON = JsonMapper.builder().build();
    /** llama.cpp's {@code llama-server} answering, with HTTP 400, a request longer than its context of 2,048 tokens. */
    static final String LLAMA_OVERFLOW = "{\"error\":{\"code\":400,\"message\":\"request (2574 tokens) exceeds the "
            + "available context size (2048 tokens), try increasing it\",\"type\":\"exceed_context_size_error\","
            + "\"n_prompt_tokens\":2574,\"n_ctx\":2048}}";

    /** What the fake model answers: text, or tool calls. */
    sealed interface Reply permits Text, Calls {}

    /** A text answer. */
    record Text(String text) implements Reply {}

    /** Tool calls, each {@code {name, arguments}}. */
    record Calls(List<String[]> calls) implements Reply {}

    static Reply text(String text) {
        return new Text(text);
    }

    static Reply call(String name, String arguments) {
        List<String[]> one = new ArrayList<>();
        one.add(new String[] {name, arguments});
        return new Calls(one);
    }

    private final Function<JsonNode, Reply> answer;
    private final boolean alwaysWhole;
    private final List<JsonNode> bodies = new ArrayList<>();
    private int count;

    ChatCompletionsFake(Function<JsonNode, Reply> answer) {
        this(answer, false);
    }

    /**
     * A fake endpoint.
     *
     * @param answer what to answer a request body with
     * @param alwaysWhole whether to answer with one JSON body even when a stream was asked for,
     *     as some servers do
     */
    ChatCompletionsFake(Function<JsonNode, Reply> answer, boolean alwaysWhole) {
        this.answer = answer;
        this.alwaysWhole = alwaysWhole;
    }

    /** Every request body received, in order. */
    synchronized List<JsonNode> bodies() {
        return List.copyOf(bodies);
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        if (!request.getUrl().encodedPath().endsWith("/chat/completions")) {
            return new MockResponse.Builder().code(404).body("{\"error\":{\"message\":\"no such path\"}}").build();
        }
        JsonNode body = JSON.readTree(request.getBody().utf8());
        int n;
        synchronized (this) {
            bodies.add(body);
            n = ++count;
        }
        Reply reply = answer.apply(body);
        String id = "chatcmpl-" + n;
        if (alwaysWhole || !body.path("stream").asBoolean(false)) {
            return new MockResponse.Builder().addHeader("Content-Type", "application/json")
                    .body(whole(id, reply).toString()).build();
        }
        return new MockResponse.Builder().addHeader("Content-Type", "text/event-stream").body(stream(id, reply)).build();
    }

    private static String stream(String id, Reply reply) {
        StringBuilder sse = new StringBuilder();
        switch (reply) {
            case Text t -> {
                sse.append(chunk(id, delta().put("role", "assistant").put("content", ""), null));
                for (String piece : t.text().split("(?<= )")) {
                    sse.append(chunk(id, delta().put("content", piece), null));
                }
                sse.append(chunk(id, delta(), "stop"));
            }
            case Calls c -> {
                for (int i = 0; i < c.calls().size(); i++) {
                    String[] call = c.calls().get(i);
                    ObjectNode start = JSON.createObjectNode().put("index", i).put("id", "call_" + id + "_" + i)
                            .put("type", "function");
                    start.putObject("function").put("name", call[0]).put("arguments", "");
                    ObjectNode d = delta().put("role", "assistant");
                    d.putArray("tool_calls").add(start);
                    sse.append(chunk(id, d, null));
                    String args = call[1];
                    int half = args.length() / 2;
                    for (String part : List.of(args.substring(0, half), args.substring(half))) {
                        ObjectNode frag = JSON.createObjectNode().put("index", i);
                        frag.putObject("function").put("arguments", part);
                        ObjectNode fd = delta();
                        fd.putArray("tool_calls").add(frag);
                        sse.append(chunk(id, fd, null));
                    }
                }
                sse.append(chunk(id, delta(), "tool_calls"));
            }
        }
        ObjectNode usage = JSON.createObjectNode().put("id", id).put("object", "chat.completion.chunk").put("model", "fake");
        usage.putArray("choices");
        usage.putObject("usage").put("prompt_tokens", 100).put("completion_tokens", 10).put("total_tokens", 110);
        sse.append("data: ").append(usage).append("\n\n");
        return sse.append("data: [DONE]\n\n").toString();
    }

    private static ObjectNode whole(String id, Reply reply) {
        ObjectNode o = JSON.createObjectNode().put("id", id).put("object", "chat.completion").put("model", "fake");
        ObjectNode choice = o.putArray("choices").addObject().put("index", 0);
        ObjectNode message = choice.putObject("message").put("role", "assistant");
        switch (reply) {
            case Text t -> {
                message.put("content", t.text());
                choice.put("finish_reason", "stop");
            }
            case Calls c -> {
                message.putNull("content");
                ArrayNode calls = message.putArray("tool_calls");
                for (int i = 0; i < c.calls().size(); i++) {
                    ObjectNode call = calls.addObject().put("id", "call_" + id + "_" + i).put("type", "function");
                    call.putObject("function").put("name", c.calls().get(i)[0]).put("arguments", c.calls().get(i)[1]);
                }
                choice.put("finish_reason", "tool_calls");
            }
        }
        o.putObject("usage").put("prompt_tokens", 100).put("completion_tokens", 10).put("total_tokens", 110);
        return o;
    }

    private static ObjectNode delta() {
        return JSON.createObjectNode();
    }

    private static String chunk(String id, ObjectNode delta, String finish) {
        ObjectNode o = JSON.createObjectNode().put("id", id).put("object", "chat.completion.chunk").put("model", "fake");
        ObjectNode choice = o.putArray("choices").addObject().put("index", 0);
        choice.set("delta", delta);
        if (finish == null) {
            choice.putNull("finish_reason");
        } else {
            choice.put("finish_reason", finish);
        }
        return "data: " + o + "\n\n";
    }

    /** The system prompt of a request body. */
    static String systemPrompt(JsonNode body) {
        JsonNode first = body.path("messages").path(0);
        return first.path("role").asString("").equals("system") ? first.path("content").asString("") : "";
    }

    /** Whether a request body already holds tool results. */
    static boolean hasToolResults(JsonNode body) {
        for (JsonNode m : body.path("messages")) {
            if (m.path("role").asString("").equals("tool")) {
                return true;
            }
        }
        return false;
    }

    /** The names of the tools a request offers. */
    static List<String> toolNames(JsonNode body) {
        List<String> names = new ArrayList<>();
        for (JsonNode t : body.path("tools")) {
            names.add(t.path("function").path("name").asString());
        }
        return names;
    }
}
