package dev.shelly.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A local server that speaks OpenAI's Chat Completions as the service does: it refuses a request
 * that breaks {@link ChatCompletionsRules} with the service's 400 error (and keeps the problems
 * for the test to assert there are none), and answers a valid one, streamed as server-sent events
 * when the request asks for a stream (with the usage chunk when {@code stream_options} asks for
 * it), else as one JSON body.
 */
final class OpenAiEmulator extends Dispatcher implements AutoCloseable {

    /** What the emulated model does with a request. */
    sealed interface Answer permits Say, Call, Hold {}

    /** Answers with text. */
    record Say(String text) implements Answer {}

    /** Calls one tool. */
    record Call(String name, String arguments) implements Answer {}

    /** Answers nothing until the server closes: a model too slow to wait for. */
    record Hold() implements Answer {}

    private final MockWebServer server = new MockWebServer();
    private final Function<JsonNode, Answer> model;
    private final List<JsonNode> requests = Collections.synchronizedList(new ArrayList<>());
    private final List<String> problems = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger served = new AtomicInteger();
    private final CountDownLatch closing = new CountDownLatch(1);

    private OpenAiEmulator(Function<JsonNode, Answer> model) {
        this.model = model;
    }

    /** Starts a server whose model answers each valid request body as the function says. */
    static OpenAiEmulator start(Function<JsonNode, Answer> model) throws IOException {
        OpenAiEmulator emulator = new OpenAiEmulator(model);
        emulator.server.setDispatcher(emulator);
        emulator.server.start(0);
        return emulator;
    }

    /** The base URL a client is given: {@code http://127.0.0.1:PORT/v1}. */
    String baseUrl() {
        String url = server.url("/v1").toString();
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    /** The valid request bodies received, in order. */
    List<JsonNode> requests() {
        return List.copyOf(requests);
    }

    /** Everything the server refused a request for. */
    List<String> problems() {
        return List.copyOf(problems);
    }

    /** The text of the last user message of a request (tool results are not user messages). */
    static String lastUserText(JsonNode body) {
        String text = "";
        for (JsonNode m : body.path("messages")) {
            if (m.path("role").asString("").equals("user")) {
                text = m.path("content").isString() ? m.path("content").stringValue() : m.path("content").toString();
            }
        }
        return text;
    }

    /** Whether the last message of a request is a tool result. */
    static boolean answersATool(JsonNode body) {
        JsonNode messages = body.path("messages");
        return messages.get(messages.size() - 1).path("role").asString("").equals("tool");
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
        if (!request.getMethod().equals("POST") || !request.getUrl().encodedPath().equals("/v1/chat/completions")) {
            return error(404, "Invalid URL (" + request.getMethod() + " " + request.getUrl().encodedPath() + ")");
        }
        String type = request.getHeaders().get("Content-Type");
        if (type == null || !type.startsWith("application/json")) {
            return refuse("Content-Type must be application/json, was " + type);
        }
        JsonNode body;
        try {
            body = Shown.JSON.readTree(request.getBody().utf8());
        } catch (JacksonException e) {
            return refuse("We could not parse the JSON body of your request.");
        }
        List<String> found = ChatCompletionsRules.check(body);
        if (!found.isEmpty()) {
            problems.addAll(found);
            return error(400, found.getFirst());
        }
        requests.add(body);
        Answer answer = model.apply(body);
        if (answer instanceof Hold) {
            closing.await(30, TimeUnit.SECONDS);
            return error(503, "the emulator is closing");
        }
        String id = "chatcmpl-" + served.incrementAndGet();
        if (body.path("stream").asBoolean(false)) {
            boolean usage = body.path("stream_options").path("include_usage").asBoolean(false);
            return new MockResponse.Builder().addHeader("Content-Type", "text/event-stream")
                    .body(events(id, body.path("model").stringValue(), answer, usage)).build();
        }
        return new MockResponse.Builder().addHeader("Content-Type", "application/json")
                .body(completion(id, body.path("model").stringValue(), answer).toString()).build();
    }

    private MockResponse refuse(String problem) {
        problems.add(problem);
        return error(400, problem);
    }

    private static MockResponse error(int code, String message) {
        ObjectNode body = Shown.JSON.createObjectNode();
        body.putObject("error").put("message", message).put("type", "invalid_request_error").putNull("param")
                .putNull("code");
        return new MockResponse.Builder().code(code).addHeader("Content-Type", "application/json")
                .body(body.toString()).build();
    }

    /** The whole completion, as a request without a stream gets it. */
    private static ObjectNode completion(String id, String model, Answer answer) {
        ObjectNode root = Shown.JSON.createObjectNode().put("id", id).put("object", "chat.completion")
                .put("created", 1_800_000_000L).put("model", model);
        ObjectNode choice = root.putArray("choices").addObject().put("index", 0);
        ObjectNode message = choice.putObject("message").put("role", "assistant");
        if (answer instanceof Call call) {
            message.putNull("content");
            ObjectNode tool = message.putArray("tool_calls").addObject().put("id", "call_" + id).put("type", "function");
            tool.putObject("function").put("name", call.name()).put("arguments", call.arguments());
            choice.put("finish_reason", "tool_calls");
        } else {
            message.put("content", ((Say) answer).text());
            choice.put("finish_reason", "stop");
        }
        root.set("usage", usage());
        return root;
    }

    /** The completion as server-sent events: the role, the content or call in pieces, the end, the usage. */
    private static String events(String id, String model, Answer answer, boolean withUsage) {
        StringBuilder sse = new StringBuilder();
        ObjectNode opening = Shown.JSON.createObjectNode().put("role", "assistant");
        if (answer instanceof Call call) {
            ObjectNode tool = opening.putArray("tool_calls").addObject().put("index", 0).put("id", "call_" + id)
                    .put("type", "function");
            tool.putObject("function").put("name", call.name()).put("arguments", "");
            sse.append(event(id, model, opening, null));
            for (String piece : pieces(call.arguments())) {
                ObjectNode more = Shown.JSON.createObjectNode();
                more.putArray("tool_calls").addObject().put("index", 0).putObject("function").put("arguments", piece);
                sse.append(event(id, model, more, null));
            }
            sse.append(event(id, model, Shown.JSON.createObjectNode(), "tool_calls"));
        } else {
            sse.append(event(id, model, opening.put("content", ""), null));
            for (String piece : pieces(((Say) answer).text())) {
                sse.append(event(id, model, Shown.JSON.createObjectNode().put("content", piece), null));
            }
            sse.append(event(id, model, Shown.JSON.createObjectNode(), "stop"));
        }
        if (withUsage) {
            ObjectNode last = chunk(id, model);
            last.putArray("choices");
            last.set("usage", usage());
            sse.append("data: ").append(last).append("\n\n");
        }
        return sse.append("data: [DONE]\n\n").toString();
    }

    private static String event(String id, String model, ObjectNode delta, String finish) {
        ObjectNode chunk = chunk(id, model);
        ObjectNode choice = chunk.putArray("choices").addObject().put("index", 0);
        choice.set("delta", delta);
        if (finish == null) {
            choice.putNull("finish_reason");
        } else {
            choice.put("finish_reason", finish);
        }
        chunk.putNull("usage");
        return "data: " + chunk + "\n\n";
    }

    private static ObjectNode chunk(String id, String model) {
        return Shown.JSON.createObjectNode().put("id", id).put("object", "chat.completion.chunk")
                .put("created", 1_800_000_000L).put("model", model);
    }

    /** Text in three pieces, as a stream brings it. */
    private static List<String> pieces(String text) {
        int third = text.length() / 3;
        return List.of(text.substring(0, third), text.substring(third, 2 * third), text.substring(2 * third));
    }

    private static ObjectNode usage() {
        return Shown.JSON.createObjectNode().put("prompt_tokens", 50).put("completion_tokens", 7).put("total_tokens", 57);
    }

    @Override
    public void close() {
        closing.countDown();
        try {
            server.close();
        } catch (RuntimeException e) {
            // A held response may still be writing to a connection the client dropped.
        }
    }
}
