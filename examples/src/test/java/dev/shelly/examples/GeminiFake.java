package dev.shelly.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A fake Gemini API for MockWebServer: {@code generateContent} and
 * {@code streamGenerateContent?alt=sse} of one model, the key checked in {@code x-goog-api-key},
 * function calls sent without ids (as Gemini 2.5 does), every body kept.
 */
final class GeminiFake extends Dispatcher {
    private final String model;
    private final String key;
    private final Function<JsonNode, ChatCompletionsFake.Reply> answer;
    private final List<JsonNode> bodies = new ArrayList<>();
    private final List<String> paths = new ArrayList<>();

    GeminiFake(String model, String key, Function<JsonNode, ChatCompletionsFake.Reply> answer) {
        this.model = model;
        this.key = key;
        this.answer = answer;
    }

    /** Every request body received, in order. */
    synchronized List<JsonNode> bodies() {
        return List.copyOf(bodies);
    }

    /** Every request path (with its query) received, in order. */
    synchronized List<String> paths() {
        return List.copyOf(paths);
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        String query = request.getUrl().encodedQuery();
        String path = request.getUrl().encodedPath() + (query == null ? "" : "?" + query);
        boolean stream = path.equals("/v1beta/models/" + model + ":streamGenerateContent?alt=sse");
        if (!stream && !path.equals("/v1beta/models/" + model + ":generateContent")) {
            return error(404, "models/" + model + " is not found for API version v1beta", "NOT_FOUND");
        }
        if (!key.equals(request.getHeaders().get("x-goog-api-key"))) {
            return error(400, "API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT");
        }
        JsonNode body = ChatCompletionsFake.JSON.readTree(request.getBody().utf8());
        synchronized (this) {
            bodies.add(body);
            paths.add(path);
        }
        ObjectNode reply = reply(answer.apply(body));
        if (!stream) {
            return new MockResponse.Builder().addHeader("Content-Type", "application/json").body(reply.toString()).build();
        }
        return new MockResponse.Builder().addHeader("Content-Type", "text/event-stream")
                .body("data: " + reply + "\n\n").build();
    }

    private static ObjectNode reply(ChatCompletionsFake.Reply reply) {
        ObjectNode o = ChatCompletionsFake.JSON.createObjectNode();
        ObjectNode candidate = o.putArray("candidates").addObject();
        ObjectNode content = candidate.putObject("content").put("role", "model");
        ArrayNode parts = content.putArray("parts");
        switch (reply) {
            case ChatCompletionsFake.Text t -> parts.addObject().put("text", t.text());
            case ChatCompletionsFake.Calls c -> {
                for (String[] call : c.calls()) {
                    ObjectNode fc = parts.addObject().putObject("functionCall").put("name", call[0]);
                    fc.set("args", ChatCompletionsFake.JSON.readTree(call[1]));
                }
            }
        }
        candidate.put("finishReason", "STOP").put("index", 0);
        o.putObject("usageMetadata").put("promptTokenCount", 100).put("candidatesTokenCount", 10)
                .put("totalTokenCount", 110);
        o.put("modelVersion", "gemini-2.5-flash").put("responseId", "fake-" + System.identityHashCode(reply));
        return o;
    }

    private static MockResponse error(int code, String message, String status) {
        return new MockResponse.Builder().code(code).addHeader("Content-Type", "application/json")
                .body("{\"error\":{\"code\":" + code + ",\"message\":\"" + message + "\",\"status\":\"" + status + "\"}}")
                .build();
    }

    /** The system instruction of a request body. */
    static String systemInstruction(JsonNode body) {
        return body.path("systemInstruction").path("parts").path(0).path("text").asString("");
    }

    /** The names of the functions a request declares. */
    static List<String> functionNames(JsonNode body) {
        List<String> names = new ArrayList<>();
        for (JsonNode t : body.path("tools")) {
            for (JsonNode f : t.path("functionDeclarations")) {
                names.add(f.path("name").asString());
            }
        }
        return names;
    }
}
