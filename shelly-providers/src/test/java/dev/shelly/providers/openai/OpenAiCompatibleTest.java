package dev.shelly.providers.openai;

import static dev.shelly.providers.Fixtures.assertJson;
import static dev.shelly.providers.Fixtures.json;
import static dev.shelly.providers.Fixtures.sse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.UsageTracker;
import dev.shelly.providers.Fixtures;
import java.util.ArrayList;
import java.util.List;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;

/** Local servers that speak Chat Completions, with their documented deviations. */
class OpenAiCompatibleTest {
    @StartStop
    private final MockWebServer server = new MockWebServer();

    private OpenAiCompleter.Builder ollama() {
        return OpenAiCompleter.compatible().name("ollama").baseUrl(server.url("/v1").toString()).model("llama3.2")
                .environment(name -> "must-not-be-used").retry(RetryPolicy.none());
    }

    @Test
    void needsNoKeyAndSendsMaxTokens() throws Exception {
        server.enqueue(json(200, """
                {"id":"chatcmpl-1","model":"llama3.2","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},
                 "finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}"""));
        ModelResponse reply = ollama().maxTokens(64).build().complete(Fixtures.request(Chat.of(Message.user("hello")), List.of()));
        assertThat(reply.message().text()).isEqualTo("hi");
        assertThat(reply.message().sender()).isEqualTo("ollama");
        assertThat(reply.usage()).isEqualTo(dev.shelly.modeladapter.Usage.of(5, 1));
        RecordedRequest request = server.takeRequest();
        assertThat(request.getHeaders().get("Authorization")).isNull();
        assertJson(request, """
                {"model":"llama3.2","messages":[{"role":"user","content":"hello"}],"max_tokens":64}
                """);
        assertThatThrownBy(() -> OpenAiCompleter.compatible().model("m").build())
                .hasMessage("openai-compatible: base URL must be set: call baseUrl(...)");
    }

    @Test
    void aServerThatIgnoresTheStreamRequestAndAnswersWithJsonStillAnswers() throws Exception {
        // llama.cpp-style servers and some proxies answer "stream": true with one JSON document.
        server.enqueue(json(200, """
                {"id":"chatcmpl-2","model":"llama3.2","choices":[{"index":0,"message":{"role":"assistant",
                 "content":"Checking.","tool_calls":[{"id":"call_7","type":"function","function":{"name":"get_weather",
                 "arguments":"{\\"city\\":\\"Paris\\"}"}}]},"finish_reason":"tool_calls"}],
                 "usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13}}"""));
        List<Delta> deltas = new ArrayList<>();
        ModelResponse reply = ollama().build().complete(Fixtures.request(Chat.of(Message.user("weather?")), List.of()), deltas::add);
        assertThat(reply.message().text()).isEqualTo("Checking.");
        assertThat(reply.message().toolCalls()).containsExactly(new ToolCall("call_7", "get_weather", "{\"city\":\"Paris\"}"));
        assertThat(deltas).containsExactly(new Delta.TextDelta("Checking."),
                new Delta.ToolCallStart(0, "call_7", "get_weather"),
                new Delta.ToolCallArguments(0, "{\"city\":\"Paris\"}"),
                new Delta.UsageDelta(dev.shelly.modeladapter.Usage.of(9, 4)));
        assertThat(server.takeRequest().getBody().utf8()).contains("\"stream\":true");
    }

    @Test
    void anOptionalKeyIsSentAsBearer() throws Exception {
        server.enqueue(json(200, "{\"id\":\"x\",\"choices\":[{\"index\":0,\"message\":{\"content\":\"ok\"}}]}"));
        OpenAiCompleter.compatible().baseUrl(server.url("/v1").toString()).apiKey("local-key").model("m")
                .retry(RetryPolicy.none()).build().complete(Fixtures.request(Chat.of(Message.user("x")), List.of()));
        assertThat(server.takeRequest().getHeaders().get("Authorization")).isEqualTo("Bearer local-key");
    }

    @Test
    void parallelCallsAtIndexZeroWithDistinctIdsAreSeparateCalls() {
        // Ollama sends each parallel call whole, all at index 0, and finishes with "stop".
        String head = "data: {\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\",\"model\":\"llama3.2\",";
        server.enqueue(sse(head + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":"
                + "[{\"id\":\"call_x1\",\"index\":0,\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}]}}]}\n\n"
                + head + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":"
                + "[{\"id\":\"call_x2\",\"index\":0,\"type\":\"function\",\"function\":{\"name\":\"get_time\",\"arguments\":\"{}\"}}]}}]}\n\n"
                + head + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":\"stop\"}]}\n\n"
                + "data: [DONE]\n\n"));
        UsageTracker tracker = new UsageTracker();
        List<Delta> deltas = new ArrayList<>();
        ModelResponse reply = ollama().usageTracker(tracker).build().complete(Fixtures.request(Chat.of(Message.user("go")), List.of()), deltas::add);
        assertThat(reply.message().parts()).containsExactly(new ToolCall("call_x1", "get_weather", "{\"city\":\"Paris\"}"),
                new ToolCall("call_x2", "get_time", "{}"));
        assertThat(reply.stopReason()).isEqualTo(StopReason.TOOL_USE);
        assertThat(reply.usage()).as("no usage chunk: zero, and not counted").isEqualTo(dev.shelly.modeladapter.Usage.ZERO);
        assertThat(tracker.count()).isZero();
        assertThat(deltas).containsExactly(new Delta.ToolCallStart(0, "call_x1", "get_weather"),
                new Delta.ToolCallArguments(0, "{\"city\":\"Paris\"}"),
                new Delta.ToolCallStart(1, "call_x2", "get_time"),
                new Delta.ToolCallArguments(1, "{}"));
    }

    @Test
    void continuationFragmentsWithAnotherIdStayInTheirCall() {
        // Some servers (mlx-openai-server before its PR 216, Poolside) give the fragments after
        // the first one of a call another id; without a function name they continue the call.
        String head = "data: {\"id\":\"chatcmpl-7\",\"object\":\"chat.completion.chunk\",\"model\":\"qwen3\",";
        server.enqueue(sse(head + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":"
                + "[{\"index\":0,\"id\":\"call_first\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]}}]}\n\n"
                + head + "\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":"
                + "[{\"index\":0,\"id\":\"call_other\",\"type\":\"function\",\"function\":{\"arguments\":\"{\\\"city\\\":\"}}]}}]}\n\n"
                + head + "\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":"
                + "[{\"index\":0,\"id\":\"call_other\",\"type\":\"function\",\"function\":{\"arguments\":\"\\\"Paris\\\"}\"}}]}}]}\n\n"
                + head + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
                + "data: [DONE]\n\n"));
        List<Delta> deltas = new ArrayList<>();
        ModelResponse reply = ollama().build().complete(Fixtures.request(Chat.of(Message.user("go")), List.of()), deltas::add);
        assertThat(reply.message().parts()).containsExactly(new ToolCall("call_first", "get_weather", "{\"city\":\"Paris\"}"));
        assertThat(deltas).containsExactly(new Delta.ToolCallStart(0, "call_first", "get_weather"),
                new Delta.ToolCallArguments(0, "{\"city\":"), new Delta.ToolCallArguments(0, "\"Paris\"}"));
    }

    @Test
    void emptyIdsAreMadeUpAndNamelessCallsDropped() {
        String body = """
                {"id":"x","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[
                  {"id":"","type":"function","function":{"name":"get_time","arguments":"{}"}},
                  {"id":"call_z","type":"function","function":{"arguments":"{}"}},
                  {"id":"call_w","type":"function","function":{"name":"get_weather","arguments":{"city":"Rome"}}}]},
                 "finish_reason":"tool_calls"}]}""";
        server.enqueue(json(200, body));
        ModelResponse reply = ollama().build().complete(Fixtures.request(Chat.of(Message.user("go")), List.of()));
        assertThat(reply.message().parts()).containsExactly(new ToolCall("call_0", "get_time", "{}"),
                new ToolCall("call_w", "get_weather", "{\"city\":\"Rome\"}"));
    }

    @Test
    void vllmReasoningFieldAndOldErrorShape() {
        server.enqueue(json(200, """
                {"id":"x","model":"qwen","choices":[{"index":0,"message":{"role":"assistant","content":"4",
                 "reasoning":"2+2"},"finish_reason":"stop"}]}"""));
        ModelResponse reply = ollama().build().complete(Fixtures.request(Chat.of(Message.user("2+2?")), List.of()));
        assertThat(reply.message().parts()).first().isEqualTo(Thinking.of("2+2", null).withOrigin("openai-chat"));

        server.enqueue(json(400, """
                {"object": "error", "message": "This model's maximum context length is 131072 tokens. However, you requested 156632 tokens (152536 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.", "type": "BadRequestError", "param": null, "code": 400}"""));
        assertThatThrownBy(() -> ollama().build().complete(Fixtures.request(Chat.of(Message.user("long")), List.of())))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.CONTEXT_LENGTH_EXCEEDED);
                    assertThat(e.getMessage()).startsWith("ollama: context length exceeded (HTTP 400): the request (156632 "
                            + "tokens) does not fit the context window of model llama3.2 (131072 tokens): This model's");
                });
    }

    @Test
    void aContextOverflowInAnthropicsErrorShapeIsRecognised() {
        server.enqueue(json(400, """
                {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 9000 tokens > 8192 maximum"}}"""));
        assertThatThrownBy(() -> ollama().build().complete(Fixtures.request(Chat.of(Message.user("long")), List.of())))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.CONTEXT_LENGTH_EXCEEDED))
                .hasMessage("ollama: context length exceeded (HTTP 400): the request (9000 tokens) does not fit the context "
                        + "window of model llama3.2 (8192 tokens): prompt is too long: 9000 tokens > 8192 maximum");
    }

    @Test
    void anErrorChunkCarryingAnHttpStatusCodeIsClassifiedByIt() {
        // vLLM reports failures after HTTP 200 as a chunk with the status it would have sent.
        String role = "data: {\"id\":\"chatcmpl-5\",\"object\":\"chat.completion.chunk\",\"model\":\"qwen\","
                + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n";
        for (int i = 0; i < 3; i++) { // enough for every attempt the default policy would make
            server.enqueue(sse(role + "data: {\"error\": {\"message\": \"Invalid tool call arguments\", "
                    + "\"type\": \"BadRequestError\", \"param\": null, \"code\": 400}}\n\ndata: [DONE]\n\n"));
        }
        dev.shelly.providers.Fixtures.Sleeps sleeps = new dev.shelly.providers.Fixtures.Sleeps();
        assertThatThrownBy(() -> ollama().retry(RetryPolicy.defaults()).sleeper(sleeps).build()
                .complete(Fixtures.request(Chat.of(Message.user("go")), List.of()), d -> { }))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.INVALID_REQUEST);
                    assertThat(e.retryable()).isFalse();
                    assertThat(e.getMessage()).isEqualTo("ollama: invalid request: Invalid tool call arguments");
                });
        assertThat(server.getRequestCount()).isEqualTo(1);
        assertThat(sleeps.delays).isEmpty();
    }

    @Test
    void aToolSchemaThatIsNotAJsonObjectIsRejectedBeforeSending() {
        var broken = new dev.shelly.chats.ToolDefinition("lookup", "Look up", "{\"type\": \"object\",");
        assertThatThrownBy(() -> ollama().build().complete(Fixtures.request(Chat.of(Message.user("x")), List.of(broken))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tool 'lookup': inputSchema is not a JSON object");
        assertThat(server.getRequestCount()).isZero();
    }
}
