package dev.shelly.providers.openai;

import static dev.shelly.providers.Fixtures.PNG_BASE64;
import static dev.shelly.providers.Fixtures.assertJson;
import static dev.shelly.providers.Fixtures.json;
import static dev.shelly.providers.Fixtures.sse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Image;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTarget;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.Usage;
import dev.shelly.modeladapter.UsageTracker;
import dev.shelly.providers.Fixtures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class OpenAiCompleterTest {
    private static final String KEY = "sk-proj-test-0123456789";

    @StartStop
    private final MockWebServer server = new MockWebServer();

    private OpenAiCompleter.Builder builder() {
        return OpenAiCompleter.builder()
                .baseUrl(server.url("/v1").toString())
                .apiKey(KEY)
                .model("gpt-test")
                .environment(name -> null)
                .retry(RetryPolicy.none());
    }

    static final String REPLY = """
            {"id":"chatcmpl-123","object":"chat.completion","created":1694268190,"model":"gpt-test-2024",
             "choices":[{"index":0,"message":{"role":"assistant","content":"Checking both.","refusal":null,
               "tool_calls":[
                 {"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}},
                 {"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{}"}}]},
               "logprobs":null,"finish_reason":"tool_calls"}],
             "usage":{"prompt_tokens":120,"completion_tokens":45,"total_tokens":165,
               "prompt_tokens_details":{"cached_tokens":100,"audio_tokens":0},
               "completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0}},
             "service_tier":"default","system_fingerprint":"fp_44709d6fcb"}
            """;

    private static String chunk(String choices, String usage) {
        return "data: {\"id\":\"chatcmpl-123\",\"object\":\"chat.completion.chunk\",\"created\":1694268190,"
                + "\"model\":\"gpt-test-2024\",\"system_fingerprint\":\"fp_44709d6fcb\",\"choices\":" + choices
                + ",\"usage\":" + usage + "}\n\n";
    }

    private static String delta(String delta) {
        return chunk("[{\"index\":0,\"delta\":" + delta + ",\"logprobs\":null,\"finish_reason\":null}]", "null");
    }

    static final String STREAM = delta("{\"role\":\"assistant\",\"content\":\"\",\"refusal\":null}")
            + delta("{\"content\":\"Checking \"}")
            + delta("{\"content\":\"both.\"}")
            + delta("{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]}")
            + delta("{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"get_time\",\"arguments\":\"\"}}]}")
            + delta("{\"tool_calls\":[{\"index\":0,\"id\":null,\"function\":{\"arguments\":\"{\\\"city\\\":\",\"name\":null},\"type\":null}]}")
            + delta("{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"{}\"}}]}")
            + delta("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"Paris\\\"}\"}}]}")
            + chunk("[{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"tool_calls\"}]", "null")
            + chunk("[]", "{\"prompt_tokens\":120,\"completion_tokens\":45,\"total_tokens\":165,"
                    + "\"prompt_tokens_details\":{\"cached_tokens\":100},\"completion_tokens_details\":{\"reasoning_tokens\":0}}")
            + "data: [DONE]\n\n";

    static final ModelResponse EXPECTED_REPLY = new ModelResponse(new Message("openai", Role.ASSISTANT, List.of(
            new Text("Checking both."),
            new ToolCall("call_a", "get_weather", "{\"city\":\"Paris\"}"),
            new ToolCall("call_b", "get_time", "{}"))),
            new Usage(20, 45, 100, 0), StopReason.TOOL_USE, "tool_calls", "gpt-test-2024", "chatcmpl-123", "openai");

    @Test
    void toolOnlyAssistantMessagesHaveNullContentAndResultImagesFollowAsAUserMessage() throws Exception {
        server.enqueue(sse(STREAM));
        Chat chat = Chat.of(
                Message.user("screenshot please"),
                Message.of("bot", Role.ASSISTANT, new ToolCall("c1", "screenshot", "{}")),
                Message.of("tools", Role.TOOL, new ToolResult("c1",
                        List.of(new Text("here it is"), Image.ofBytes(Fixtures.PNG, "image/png")), false)),
                Message.of("bot", Role.ASSISTANT, new Fixtures.Citation("nothing sendable")));
        builder().reasoningEffort("low").build().complete(Fixtures.request(chat, List.of()), d -> { });
        assertJson(server.takeRequest(), """
                {"model":"gpt-test","messages":[
                  {"role":"user","content":"screenshot please"},
                  {"role":"assistant","content":null,"tool_calls":[
                    {"id":"c1","type":"function","function":{"name":"screenshot","arguments":"{}"}}]},
                  {"role":"tool","tool_call_id":"c1","content":"here it is"},
                  {"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}}]}],
                 "reasoning_effort":"low","stream":true,"stream_options":{"include_usage":true}}
                """.formatted(PNG_BASE64));
    }

    @Test
    void toolCallArgumentsThatAreNotAJsonObjectGoBackAsAnEmptyObject() throws Exception {
        server.enqueue(sse(STREAM));
        Chat chat = Chat.of(
                Message.user("weather?"),
                Message.of("bot", Role.ASSISTANT, new ToolCall("c1", "get_weather", "{\"city\": Paris"),
                        new ToolCall("c2", "get_weather", "[1,2]"), new ToolCall("c3", "get_weather", "{\"city\":\"Rome\"}")),
                Message.of("tools", Role.TOOL,
                        ToolResult.error("c1", "arguments for tool 'get_weather' are not valid JSON"),
                        ToolResult.error("c2", "arguments for tool 'get_weather' must be a JSON object"),
                        ToolResult.of("c3", "sunny")));
        builder().build().complete(Fixtures.request(chat, List.of()), d -> { });
        assertJson(server.takeRequest(), """
                {"model":"gpt-test","messages":[
                  {"role":"user","content":"weather?"},
                  {"role":"assistant","content":null,"tool_calls":[
                    {"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{}"}},
                    {"id":"c2","type":"function","function":{"name":"get_weather","arguments":"{}"}},
                    {"id":"c3","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Rome\\"}"}}]},
                  {"role":"tool","tool_call_id":"c1","content":"arguments for tool 'get_weather' are not valid JSON"},
                  {"role":"tool","tool_call_id":"c2","content":"arguments for tool 'get_weather' must be a JSON object"},
                  {"role":"tool","tool_call_id":"c3","content":"sunny"}],
                 "stream":true,"stream_options":{"include_usage":true}}
                """);
    }

    @Test
    void parsesTextToolCallsAndUsage() {
        server.enqueue(json(200, REPLY));
        UsageTracker tracker = new UsageTracker();
        ModelResponse reply = builder().usageTracker(tracker).build().complete(Fixtures.request(Fixtures.conversation(), Fixtures.tools()));
        assertThat(reply).isEqualTo(EXPECTED_REPLY);
        assertThat(tracker.total()).isEqualTo(new Usage(20, 45, 100, 0));
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aStreamedReplyEqualsTheNonStreamedOneWithToolCallsAssembledByIndex(boolean virtual) throws Exception {
        server.enqueue(sse(STREAM));
        UsageTracker tracker = new UsageTracker();
        List<Delta> deltas = new ArrayList<>();
        OpenAiCompleter completer = builder().usageTracker(tracker).build();
        // On a virtual thread the stream is read by the caller, each chunk from its bytes.
        ModelResponse[] replies = new ModelResponse[1];
        Runnable call = () -> replies[0] = completer.complete(Fixtures.request(Fixtures.conversation(), Fixtures.tools()),
                deltas::add);
        if (virtual) {
            Thread.ofVirtual().start(call).join();
        } else {
            call.run();
        }
        ModelResponse reply = replies[0];
        assertThat(reply).isEqualTo(EXPECTED_REPLY);
        assertThat(deltas).containsExactly(
                new Delta.TextDelta("Checking "),
                new Delta.TextDelta("both."),
                new Delta.ToolCallStart(0, "call_a", "get_weather"),
                new Delta.ToolCallStart(1, "call_b", "get_time"),
                new Delta.ToolCallArguments(0, "{\"city\":"),
                new Delta.ToolCallArguments(1, "{}"),
                new Delta.ToolCallArguments(0, "\"Paris\"}"),
                new Delta.UsageDelta(new Usage(20, 45, 100, 0)));
        assertThat(tracker.total()).isEqualTo(new Usage(20, 45, 100, 0));
    }

    @Test
    void badModelOutputGivesADefinedResult() {
        server.enqueue(json(200, """
                {"id":"x","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,
                 "tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\\"a\\": tru"}}]},
                 "finish_reason":"length"}]}"""));
        ModelResponse cut = builder().build().complete(Fixtures.request(Chat.of(Message.user("go")), List.of()));
        assertThat(cut.message().parts()).containsExactly(new ToolCall("c", "f", "{\"a\": tru"));
        assertThat(cut.stopReason()).as("cut off, not a finished tool call").isEqualTo(StopReason.MAX_TOKENS);
        assertThat(cut.usage()).isEqualTo(Usage.ZERO);

        server.enqueue(json(200, """
                {"id":"x","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"stop"}],
                 "usage":{"prompt_tokens":3,"completion_tokens":0,"total_tokens":3}}"""));
        ModelResponse empty = builder().build().complete(Fixtures.request(Chat.of(Message.user("go")), List.of()));
        assertThat(empty.message().parts()).isEmpty();
        assertThat(empty.stopReason()).isEqualTo(StopReason.END_TURN);

        server.enqueue(json(200, "{\"id\":\"x\",\"choices\":[]}"));
        assertThatThrownBy(() -> builder().build().complete(Fixtures.request(Chat.of(Message.user("go")), List.of())))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.getMessage())
                        .isEqualTo("openai: invalid response: the reply has no choices"));

        server.enqueue(json(200, """
                {"id":"x","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},
                 "finish_reason":"stop"}]}"""));
        ModelResponse refused = builder().build().complete(Fixtures.request(Chat.of(Message.user("go")), List.of()));
        assertThat(refused.message().text()).isEqualTo("I can't help with that.");
        assertThat(refused.stopReason()).isEqualTo(StopReason.REFUSAL);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"stop, END_TURN", "length, MAX_TOKENS", "tool_calls, TOOL_USE", "content_filter, CONTENT_FILTER",
            "function_call, TOOL_USE", "a_reason_from_the_future, OTHER"})
    void everyFinishReasonIsMapped(String wire, StopReason expected) {
        server.enqueue(json(200, """
                {"id":"x","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},
                 "finish_reason":"%s"}]}""".formatted(wire)));
        ModelResponse reply = builder().build().complete(Fixtures.request(Chat.of(Message.user("hi")), List.of()));
        assertThat(reply.stopReason()).isEqualTo(expected);
        assertThat(reply.providerStopReason()).isEqualTo(wire);
    }

    @ParameterizedTest(name = "{0} {2} -> {4}")
    @CsvSource(delimiter = '|', textBlock = """
            400 | invalid_request_error | context_length_exceeded | This model's maximum context length is 4097 tokens. However, your messages resulted in 4294 tokens. Please reduce the length of the messages. | CONTEXT_LENGTH_EXCEEDED | false
            400 | invalid_request_error | unsupported_parameter | Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead. | INVALID_REQUEST | false
            401 | invalid_request_error | invalid_api_key | Incorrect API key provided: sk-WRQsP***xQBt. You can find your API key at https://platform.openai.com/account/api-keys. | AUTHENTICATION | false
            403 | request_forbidden | unsupported_country_region_territory | Country, region, or territory not supported | PERMISSION | false
            404 | invalid_request_error | model_not_found | The model `gpt-nope` does not exist or you do not have access to it. | NOT_FOUND | false
            429 | insufficient_quota | insufficient_quota | You exceeded your current quota, please check your plan and billing details. | QUOTA_EXCEEDED | false
            429 | tokens | rate_limit_exceeded | Rate limit reached for gpt-test in organization org-x on tokens per min (TPM): Limit 200000, Used 162960, Requested 42288. Please try again in 1.574s. | RATE_LIMITED | true
            429 | tokens | rate_limit_exceeded | Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 31538. | INVALID_REQUEST | false
            500 | server_error | | The server had an error while processing your request. Sorry about that! | SERVER | true
            503 | server_error | | The engine is currently overloaded, please try again later | OVERLOADED | true
            """)
    void everyErrorKindFromARealisticBody(int status, String type, String code, String message, Kind kind,
            boolean retryable) {
        String codeJson = code == null ? "null" : "\"" + code + "\"";
        server.enqueue(new MockResponse.Builder().code(status).addHeader("x-request-id", "req_abc")
                .addHeader("retry-after-ms", "1574")
                .body("{\"error\":{\"message\":" + dev.shelly.providers.internal.WireSupport.JSON.writeValueAsString(message)
                        + ",\"type\":\"" + type + "\",\"param\":null,\"code\":" + codeJson + "}}")
                .build());
        assertThatThrownBy(() -> builder().build().complete(Fixtures.request(Chat.of(Message.user("hi")), List.of())))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(kind);
                    assertThat(e.retryable()).isEqualTo(retryable);
                    assertThat(e.status()).isEqualTo(status);
                    assertThat(e.providerMessage()).contains(message);
                    assertThat(e.requestId()).contains("req_abc");
                    assertThat(e.retryAfter()).contains(Duration.ofMillis(1574));
                    assertThat(e.getMessage()).doesNotContain(KEY);
                });
    }

    @Test
    void anErrorChunkInsideAStreamFailsWithItsKind() {
        server.enqueue(sse(delta("{\"content\":\"Hel\"}")
                + "data: {\"error\":{\"message\":\"The server had an error while processing your request.\","
                + "\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n"));
        List<Delta> deltas = new ArrayList<>();
        assertThatThrownBy(() -> builder().build().complete(Fixtures.request(Chat.of(Message.user("hi")), List.of()), deltas::add))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.SERVER);
                    assertThat(e.getMessage()).isEqualTo(
                            "openai: server: The server had an error while processing your request.");
                });
        assertThat(deltas).containsExactly(new Delta.TextDelta("Hel"));
    }

    @Test
    void anHtmlPageFromAProxyIsAServerFailureQuotedAndRetried() {
        server.enqueue(new MockResponse.Builder().code(502).addHeader("Content-Type", "text/html")
                .body("<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1>"
                        + "</center>\r\n</body>\r\n</html>\r\n").build());
        server.enqueue(json(200, REPLY));
        List<dev.shelly.modeladapter.RetryingCompleter.RetryEvent> retries = new ArrayList<>();
        ModelResponse reply = builder().retry(RetryPolicy.defaults().withJitter(0)).sleeper(new Fixtures.Sleeps())
                .retryListener(retries::add).build().complete(Fixtures.request(Fixtures.conversation(), Fixtures.tools()));
        assertThat(reply).isEqualTo(EXPECTED_REPLY);
        ModelException failure = retries.getFirst().failure();
        assertThat(failure.kind()).isEqualTo(Kind.SERVER);
        assertThat(failure.getMessage()).isEqualTo("openai: server (HTTP 502): <html> <head><title>502 Bad Gateway</title>"
                + "</head> <body> <center><h1>502 Bad Gateway</h1></center> </body> </html>");
        assertThat(retries.getFirst().delay()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void retryAfterMsIsHonoured() {
        server.enqueue(new MockResponse.Builder().code(429).addHeader("retry-after-ms", "1574").addHeader("retry-after", "2")
                .body("{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}")
                .build());
        server.enqueue(json(200, REPLY));
        Fixtures.Sleeps sleeps = new Fixtures.Sleeps();
        ModelResponse reply = builder().retry(RetryPolicy.defaults()).sleeper(sleeps).build()
                .complete(Fixtures.request(Fixtures.conversation(), Fixtures.tools()));
        assertThat(reply).isEqualTo(EXPECTED_REPLY);
        assertThat(sleeps.delays).containsExactly(Duration.ofMillis(1574));
    }

    @Test
    void aQuotaFailureIsNeverRetried() {
        server.enqueue(json(429, """
                {"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"""));
        Fixtures.Sleeps sleeps = new Fixtures.Sleeps();
        assertThatThrownBy(() -> builder().retry(RetryPolicy.defaults()).sleeper(sleeps).build()
                .complete(Fixtures.request(Chat.of(Message.user("hi")), List.of())))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.QUOTA_EXCEEDED));
        assertThat(server.getRequestCount()).isEqualTo(1);
        assertThat(sleeps.delays).isEmpty();
    }

    @Test
    void settingsComeFromTheEnvironmentAndTheKeyNeverShows() throws Exception {
        server.enqueue(json(200, REPLY));
        Map<String, String> env = Map.of("OPENAI_API_KEY", "env-key-42", "OPENAI_BASE_URL", server.url("/v1/").toString());
        OpenAiCompleter completer = OpenAiCompleter.builder().model("gpt-test").environment(env::get)
                .retry(RetryPolicy.none()).build();
        completer.complete(Fixtures.request(Chat.of(Message.user("hi")), List.of()));
        RecordedRequest request = server.takeRequest();
        assertThat(request.getUrl().encodedPath()).isEqualTo("/v1/chat/completions");
        assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer env-key-42");
        assertThat(completer.toString()).doesNotContain("env-key-42");
        assertThatThrownBy(() -> OpenAiCompleter.builder().model("m").environment(n -> null).build())
                .hasMessage("openai: no API key: call apiKey(...) or set the environment variable OPENAI_API_KEY");
        assertThat(OpenAiCompleter.builder().model("m").apiKey("k").environment(n -> null).build().toString())
                .isEqualTo("OpenAiCompleter[name=openai, model=m, baseUrl=https://api.openai.com/v1]");
    }

    @Test
    void itsTargetIsTheProviderAndTheModelItAsksForBeforeAnyCall() {
        assertThat(builder().build().target()).isEqualTo(new ModelTarget("openai", "gpt-test"));
        assertThat(GrokTarget.of()).isEqualTo(new ModelTarget("grok", "grok-4"));
        assertThat(builder().name("my-gateway").build().target()).as("a name of the user's keeps the provider's own")
                .isEqualTo(new ModelTarget("openai", "gpt-test"));
        assertThat(server.getRequestCount()).isZero();
    }

    /** Grok is the OpenAI format under its own provider name. */
    private static final class GrokTarget {
        static ModelTarget of() {
            return dev.shelly.providers.grok.GrokCompleter.builder().model("grok-4").apiKey("k").environment(n -> null)
                    .build().target();
        }
    }
}
