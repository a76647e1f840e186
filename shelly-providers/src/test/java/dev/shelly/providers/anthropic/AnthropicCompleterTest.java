package dev.shelly.providers.anthropic;

import static dev.shelly.providers.Fixtures.PNG_BASE64;
import static dev.shelly.providers.Fixtures.assertJson;
import static dev.shelly.providers.Fixtures.json;
import static dev.shelly.providers.Fixtures.sse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
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
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AnthropicCompleterTest {
    private static final String KEY = "sk-ant-test-key-0123456789";

    @StartStop
    private final MockWebServer server = new MockWebServer();

    private AnthropicCompleter.Builder builder() {
        return AnthropicCompleter.builder()
                .baseUrl(server.url("/").toString())
                .apiKey(KEY)
                .model("claude-test")
                .maxTokens(1024)
                .environment(name -> null)
                .retry(RetryPolicy.none());
    }

    static final String REPLY = """
            {"id":"msg_01","type":"message","role":"assistant","model":"claude-test-20250929",
             "content":[
               {"type":"thinking","thinking":"Two lookups.","signature":"EqQB"},
               {"type":"text","text":"Checking both."},
               {"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris","unit":"celsius"}},
               {"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"x"}},
               {"type":"tool_use","id":"toolu_2","name":"get_time","input":{}}],
             "stop_reason":"tool_use","stop_sequence":null,
             "usage":{"input_tokens":120,"output_tokens":45,"cache_creation_input_tokens":10,"cache_read_input_tokens":300}}
            """;

    static final String STREAM = """
            event: message_start
            data: {"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-test-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":120,"output_tokens":1,"cache_creation_input_tokens":10,"cache_read_input_tokens":300}}}

            event: content_block_start
            data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}

            event: ping
            data: {"type": "ping"}

            event: content_block_delta
            data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Two "}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"lookups."}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}

            event: content_block_stop
            data: {"type":"content_block_stop","index":0}

            event: content_block_start
            data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Checking "}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"both."}}

            event: content_block_stop
            data: {"type":"content_block_stop","index":1}

            event: content_block_start
            data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\\"city\\": \\"Par"}}

            event: a_future_event
            data: {"type":"a_future_event","anything":[1,2]}

            event: content_block_delta
            data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"is\\", \\"unit\\": \\"celsius\\"}"}}

            event: content_block_stop
            data: {"type":"content_block_stop","index":2}

            event: content_block_start
            data: {"type":"content_block_start","index":3,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\\"query\\":\\"x\\"}"}}

            event: content_block_stop
            data: {"type":"content_block_stop","index":3}

            event: content_block_start
            data: {"type":"content_block_start","index":4,"content_block":{"type":"tool_use","id":"toolu_2","name":"get_time","input":{}}}

            event: content_block_stop
            data: {"type":"content_block_stop","index":4}

            event: message_delta
            data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":45}}

            event: message_stop
            data: {"type":"message_stop"}

            """;

    static final ModelResponse EXPECTED_REPLY = new ModelResponse(new Message("anthropic", Role.ASSISTANT, List.of(
            Thinking.of("Two lookups.", "EqQB").withOrigin("anthropic"),
            new Text("Checking both."),
            new ToolCall("toolu_1", "get_weather", "{\"city\":\"Paris\",\"unit\":\"celsius\"}"),
            new ToolCall("toolu_2", "get_time", "{}"))),
            new Usage(120, 45, 300, 10), StopReason.TOOL_USE, "tool_use", "claude-test-20250929", "msg_01", "anthropic");

    @Test
    void mergesSameSideMessagesPutsToolResultsFirstAndSkipsWhatCannotBeSent() throws Exception {
        server.enqueue(json(200, REPLY));
        Chat chat = Chat.of(
                Message.system("one"),
                Message.user("first"),
                Message.user("second"),
                Message.system("two"),
                Message.of("bot", Role.ASSISTANT, Thinking.of("unsigned, from another provider", null),
                        new ToolCall("c1", "get_time", "not json"), dev.shelly.chats.Image.ofUrl("https://x/y.png")),
                Message.of("user", Role.USER, new Text("text before result"), ToolResult("c1")),
                Message.of("bot", Role.ASSISTANT, new Fixtures.Citation("only a custom part")),
                Message.of("bot", Role.ASSISTANT, Thinking.redacted("opaque"), new Text("")),
                Message.of("user", Role.USER, dev.shelly.chats.Image.ofUrl("data:image/gif;base64,R0lGOD")));
        builder().build().complete(Fixtures.request(chat, List.of()));
        assertJson(server.takeRequest(), """
                {"model":"claude-test","max_tokens":1024,"system":"one\\n\\ntwo",
                 "messages":[
                  {"role":"user","content":[{"type":"text","text":"first"},{"type":"text","text":"second"}]},
                  {"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"get_time","input":{}}]},
                  {"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"ok"},
                                            {"type":"text","text":"text before result"}]},
                  {"role":"assistant","content":[{"type":"redacted_thinking","data":"opaque"}]},
                  {"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/gif","data":"R0lGOD"}}]}]}
                """);
    }

    private static Part ToolResult(String id) {
        return dev.shelly.chats.ToolResult.of(id, "ok");
    }

    @Test
    void parsesTextToolCallsThinkingAndUsageAndSkipsUnknownBlocks() {
        server.enqueue(json(200, REPLY));
        UsageTracker tracker = new UsageTracker();
        ModelResponse reply = builder().usageTracker(tracker).build().complete(Fixtures.request(Fixtures.conversation(), Fixtures.tools()));
        assertThat(reply).isEqualTo(EXPECTED_REPLY);
        assertThat(reply.message().metadata()).as("replies carry no metadata").isEmpty();
        assertThat(tracker.count()).isEqualTo(1);
        assertThat(tracker.total()).isEqualTo(new Usage(120, 45, 300, 10));
    }

    @Test
    void aStreamedReplyEqualsTheNonStreamedOneAndDeliversDeltasInOrder() {
        server.enqueue(sse(STREAM));
        UsageTracker tracker = new UsageTracker();
        List<Delta> deltas = new ArrayList<>();
        ModelResponse reply = builder().usageTracker(tracker).build()
                .complete(Fixtures.request(Fixtures.conversation(), Fixtures.tools()), deltas::add);
        assertThat(reply).isEqualTo(EXPECTED_REPLY);
        assertThat(deltas).containsExactly(
                new Delta.UsageDelta(new Usage(120, 1, 300, 10)),
                new Delta.ThinkingDelta("Two "),
                new Delta.ThinkingDelta("lookups."),
                new Delta.TextDelta("Checking "),
                new Delta.TextDelta("both."),
                new Delta.ToolCallStart(0, "toolu_1", "get_weather"),
                new Delta.ToolCallArguments(0, "{\"city\": \"Par"),
                new Delta.ToolCallArguments(0, "is\", \"unit\": \"celsius\"}"),
                new Delta.ToolCallStart(1, "toolu_2", "get_time"),
                new Delta.UsageDelta(new Usage(120, 45, 300, 10)));
        assertThat(tracker.total()).isEqualTo(new Usage(120, 45, 300, 10));
        assertThat(tracker.count()).isEqualTo(1);
    }

    @Test
    void theStreamingRequestAsksForAStream() throws Exception {
        server.enqueue(sse(STREAM));
        builder().build().complete(Fixtures.request(Chat.of(Message.user("hi")), List.of()), d -> { });
        RecordedRequest request = server.takeRequest();
        assertThat(request.getHeaders().get("Accept")).isEqualTo("text/event-stream");
        assertJson(request, """
                {"model":"claude-test","max_tokens":1024,
                 "messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"stream":true}
                """);
    }

    @Test
    void blocksOfParallelToolCallsAreAssembledByTheirOwnIndex() {
        server.enqueue(sse("""
                event: message_start
                data: {"type":"message_start","message":{"id":"m","model":"c","usage":{"input_tokens":5,"output_tokens":1}}}

                event: content_block_start
                data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t0","name":"a","input":{}}}

                event: content_block_start
                data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"b","input":{}}}

                event: content_block_delta
                data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"y\\":"}}

                event: content_block_delta
                data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"x\\":1}"}}

                event: content_block_delta
                data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"2}"}}

                event: message_delta
                data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"input_tokens":5,"output_tokens":9}}

                event: message_stop
                data: {"type":"message_stop"}

                """));
        ModelResponse reply = builder().build().complete(Fixtures.request(Chat.of(Message.user("go")), List.of()), d -> { });
        assertThat(reply.message().toolCalls()).containsExactly(new ToolCall("t0", "a", "{\"x\":1}"), new ToolCall("t1", "b", "{\"y\":2}"));
        assertThat(reply.usage()).isEqualTo(Usage.of(5, 9));
    }

    @Test
    void badModelOutputGivesADefinedResult() {
        // Truncated tool JSON is kept as it is, for the tool box to report; an empty reply has no parts.
        server.enqueue(sse("""
                event: message_start
                data: {"type":"message_start","message":{"id":"m","model":"c"}}

                event: content_block_start
                data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t0","name":"a","input":{}}}

                event: content_block_delta
                data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"x\\": tru"}}

                event: message_delta
                data: {"type":"message_delta","delta":{"stop_reason":"max_tokens"}}

                event: message_stop
                data: {"type":"message_stop"}

                """));
        ModelResponse cut = builder().build().complete(Fixtures.request(Chat.of(Message.user("go")), List.of()), d -> { });
        assertThat(cut.message().toolCalls()).containsExactly(new ToolCall("t0", "a", "{\"x\": tru"));
        assertThat(cut.stopReason()).isEqualTo(StopReason.MAX_TOKENS);
        assertThat(cut.usage()).isEqualTo(Usage.ZERO);

        server.enqueue(json(200, """
                {"id":"m2","type":"message","role":"assistant","model":"c","content":[],"stop_reason":"end_turn",
                 "usage":{"input_tokens":3,"output_tokens":0}}"""));
        ModelResponse empty = builder().build().complete(Fixtures.request(Chat.of(Message.user("go")), List.of()));
        assertThat(empty.message().parts()).isEmpty();
        assertThat(empty.stopReason()).isEqualTo(StopReason.END_TURN);

        server.enqueue(json(200, "<html>bad gateway</html>"));
        assertThatThrownBy(() -> builder().build().complete(Fixtures.request(Chat.of(Message.user("go")), List.of())))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.INVALID_RESPONSE);
                    assertThat(e.getMessage()).startsWith("anthropic: invalid response: the reply is not valid JSON");
                });

        server.enqueue(json(200, """
                {"id":"m3","type":"message","content":[{"type":"tool_use","name":"a","input":{}}]}"""));
        assertThatThrownBy(() -> builder().build().complete(Fixtures.request(Chat.of(Message.user("go")), List.of())))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.getMessage())
                        .isEqualTo("anthropic: invalid response: content block 0 is a tool_use without an id or a name"));
    }

    @Test
    void whitespaceOnlyTextIsNotSentSinceTheApiRejectsIt() throws Exception {
        // "messages: text content blocks must contain non-whitespace text" (HTTP 400); models do
        // reply "\n\n" before a tool call, and that reply goes back in the next request.
        server.enqueue(json(200, REPLY));
        Chat chat = Chat.of(
                Message.system(" \n"),
                Message.user("weather?"),
                Message.of("bot", Role.ASSISTANT, new Text("\n\n"), new ToolCall("t1", "get_weather", "{}")),
                Message.of("tools", Role.TOOL, new dev.shelly.chats.ToolResult("t1",
                        List.of(new Text(" "), dev.shelly.chats.Image.ofBytes(Fixtures.PNG, "image/png")), false)),
                Message.user("  "));
        builder().build().complete(Fixtures.request(chat, List.of()));
        assertJson(server.takeRequest(), """
                {"model":"claude-test","max_tokens":1024,
                 "messages":[
                  {"role":"user","content":[{"type":"text","text":"weather?"}]},
                  {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"get_weather","input":{}}]},
                  {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[
                    {"type":"image","source":{"type":"base64","media_type":"image/png","data":"%s"}}]}]}]}
                """.formatted(PNG_BASE64));
    }

    @Test
    void toolCallArgumentsThatAreNotAJsonObjectGoBackAsAnEmptyInputObject() throws Exception {
        server.enqueue(json(200, REPLY));
        Chat chat = Chat.of(
                Message.user("weather?"),
                Message.of("bot", Role.ASSISTANT, new ToolCall("t1", "get_weather", "{\"city\": Paris"),
                        new ToolCall("t2", "get_weather", "\"Paris\""), new ToolCall("t3", "get_weather", "{\"city\":\"Rome\"}")),
                Message.of("tools", Role.TOOL,
                        dev.shelly.chats.ToolResult.error("t1", "not valid JSON"),
                        dev.shelly.chats.ToolResult.error("t2", "not an object"),
                        dev.shelly.chats.ToolResult.of("t3", "sunny")));
        builder().build().complete(Fixtures.request(chat, List.of()));
        assertJson(server.takeRequest(), """
                {"model":"claude-test","max_tokens":1024,
                 "messages":[
                  {"role":"user","content":[{"type":"text","text":"weather?"}]},
                  {"role":"assistant","content":[
                    {"type":"tool_use","id":"t1","name":"get_weather","input":{}},
                    {"type":"tool_use","id":"t2","name":"get_weather","input":{}},
                    {"type":"tool_use","id":"t3","name":"get_weather","input":{"city":"Rome"}}]},
                  {"role":"user","content":[
                    {"type":"tool_result","tool_use_id":"t1","content":"not valid JSON","is_error":true},
                    {"type":"tool_result","tool_use_id":"t2","content":"not an object","is_error":true},
                    {"type":"tool_result","tool_use_id":"t3","content":"sunny"}]}]}
                """);
    }

    @Test
    void streamedRedactedThinkingIsKeptWithItsData() {
        server.enqueue(sse("""
                event: message_start
                data: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"c","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":1}}}

                event: content_block_start
                data: {"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix"}}

                event: content_block_stop
                data: {"type":"content_block_stop","index":0}

                event: content_block_start
                data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

                event: content_block_delta
                data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"ok"}}

                event: content_block_stop
                data: {"type":"content_block_stop","index":1}

                event: message_delta
                data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}

                event: message_stop
                data: {"type":"message_stop"}

                """));
        List<Delta> deltas = new ArrayList<>();
        ModelResponse reply = builder().build().complete(Fixtures.request(Chat.of(Message.user("hi")), List.of()), deltas::add);
        assertThat(reply.message().parts())
                .containsExactly(Thinking.redacted("EmwKAhgBEgy3va3pzix").withOrigin("anthropic"), new Text("ok"));
        assertThat(deltas).doesNotHaveAnyElementsOfTypes(Delta.ThinkingDelta.class);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"end_turn, END_TURN", "tool_use, TOOL_USE", "max_tokens, MAX_TOKENS", "stop_sequence, STOP_SEQUENCE",
            "refusal, REFUSAL", "pause_turn, PAUSE_TURN", "model_context_window_exceeded, CONTEXT_WINDOW_EXCEEDED",
            "a_reason_from_the_future, OTHER"})
    void everyStopReasonIsMappedAndRedactedThinkingIsKept(String wire, StopReason expected) {
        server.enqueue(json(200, """
                {"id":"m","type":"message","role":"assistant","model":"c","content":[
                  {"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix"},{"type":"text","text":"ok"}],
                 "stop_reason":"%s","usage":{"input_tokens":1,"output_tokens":1}}""".formatted(wire)));
        ModelResponse reply = builder().build().complete(Fixtures.request(Chat.of(Message.user("hi")), List.of()));
        assertThat(reply.stopReason()).isEqualTo(expected);
        assertThat(reply.providerStopReason()).isEqualTo(wire);
        assertThat(reply.message().parts())
                .containsExactly(Thinking.redacted("EmwKAhgBEgy3va3pzix").withOrigin("anthropic"), new Text("ok"));
    }

    @ParameterizedTest(name = "{0} {1} -> {3}")
    @CsvSource(delimiter = '|', textBlock = """
            400 | invalid_request_error | messages: roles must alternate between "user" and "assistant" | INVALID_REQUEST | false
            400 | invalid_request_error | prompt is too long: 203284 tokens > 200000 maximum | CONTEXT_LENGTH_EXCEEDED | false
            400 | invalid_request_error | input length and `max_tokens` exceed context limit: 178959 + 64000 > 200000, decrease input length or `max_tokens` and try again | CONTEXT_LENGTH_EXCEEDED | false
            400 | invalid_request_error | You have reached your specified API usage limits. You will regain access on 2026-12-01 at 00:00 UTC. | QUOTA_EXCEEDED | false
            401 | authentication_error | invalid x-api-key | AUTHENTICATION | false
            402 | billing_error | Your credit balance is too low to access the Anthropic API. | QUOTA_EXCEEDED | false
            403 | permission_error | Your API key does not have permission to use the specified resource. | PERMISSION | false
            404 | not_found_error | model: claude-nope | NOT_FOUND | false
            409 | conflict_error | Conflict | INVALID_REQUEST | false
            429 | rate_limit_error | This request would exceed the rate limit for your organization of 20,000 input tokens per minute. | RATE_LIMITED | true
            500 | api_error | Internal server error | SERVER | true
            504 | timeout_error | Request timed out | TIMEOUT | true
            529 | overloaded_error | Overloaded | OVERLOADED | true
            """)
    void everyErrorKindFromARealisticBody(int status, String type, String message, Kind kind, boolean retryable) {
        server.enqueue(new MockResponse.Builder().code(status).addHeader("request-id", "req_011CSHoEeqs5C35K2UUqR7Fy")
                .body("{\"type\":\"error\",\"error\":{\"type\":\"" + type + "\",\"message\":"
                        + dev.shelly.providers.internal.WireSupport.JSON.writeValueAsString(message)
                        + "},\"request_id\":\"req_011CSHoEeqs5C35K2UUqR7Fy\"}")
                .build());
        assertThatThrownBy(() -> builder().build().complete(Fixtures.request(Chat.of(Message.user("hi")), List.of())))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(kind);
                    assertThat(e.retryable()).isEqualTo(retryable);
                    assertThat(e.status()).isEqualTo(status);
                    assertThat(e.providerMessage()).contains(message);
                    assertThat(e.requestId()).contains("req_011CSHoEeqs5C35K2UUqR7Fy");
                    assertThat(e.provider()).contains("anthropic");
                    assertThat(e.getMessage()).doesNotContain(KEY);
                });
    }

    @Test
    void aSpendLimitRateLimitIsAQuotaFailureAndANonJsonBodyIsQuoted() {
        server.enqueue(json(429, """
                {"type":"error","error":{"type":"rate_limit_error","message":"You have reached your API usage limits.",
                 "details":{"error_code":"enforced_spend_limit_reached"}},"request_id":"req_018EeWyXxfu5pfWkrYcMdjWG"}"""));
        assertThatThrownBy(() -> builder().build().complete(Fixtures.request(Chat.of(Message.user("hi")), List.of())))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.QUOTA_EXCEEDED);
                    assertThat(e.retryable()).isFalse();
                    assertThat(e.requestId()).contains("req_018EeWyXxfu5pfWkrYcMdjWG");
                });
        server.enqueue(new MockResponse.Builder().code(413).body("<html>\n<h1>413 Request Entity Too Large</h1></html>")
                .build());
        assertThatThrownBy(() -> builder().build().complete(Fixtures.request(Chat.of(Message.user("hi")), List.of())))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.getMessage()).isEqualTo(
                        "anthropic: invalid request (HTTP 413): <html> <h1>413 Request Entity Too Large</h1></html>"));
    }

    @Test
    void anErrorEventAfterHttp200FailsWithItsKind() {
        server.enqueue(sse("""
                event: message_start
                data: {"type":"message_start","message":{"id":"m","model":"c","usage":{"input_tokens":5,"output_tokens":1}}}

                event: error
                data: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}

                """));
        assertThatThrownBy(() -> builder().build().complete(Fixtures.request(Chat.of(Message.user("hi")), List.of()), d -> { }))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.OVERLOADED);
                    assertThat(e.retryable()).isTrue();
                    assertThat(e.getMessage()).isEqualTo("anthropic: overloaded: Overloaded");
                });
    }

    @Test
    void anOverloadedErrorEventBeforeAnyContentIsRetriedAndUsageCountedOnce() {
        // message_start always carries usage, so only a usage delta has reached the listener.
        server.enqueue(sse("""
                event: message_start
                data: {"type":"message_start","message":{"id":"msg_00","type":"message","role":"assistant","model":"claude-test-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":120,"output_tokens":1}}}

                event: ping
                data: {"type": "ping"}

                event: error
                data: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}

                """));
        server.enqueue(sse(STREAM));
        Fixtures.Sleeps sleeps = new Fixtures.Sleeps();
        UsageTracker tracker = new UsageTracker();
        List<Delta> deltas = new ArrayList<>();
        ModelResponse reply = builder().retry(RetryPolicy.defaults().withJitter(0)).sleeper(sleeps).usageTracker(tracker)
                .build().complete(Fixtures.request(Fixtures.conversation(), Fixtures.tools()), deltas::add);
        assertThat(reply).isEqualTo(EXPECTED_REPLY);
        assertThat(server.getRequestCount()).isEqualTo(2);
        assertThat(sleeps.delays).containsExactly(Duration.ofMillis(500));
        assertThat(tracker.count()).isEqualTo(1);
        assertThat(tracker.total()).isEqualTo(new Usage(120, 45, 300, 10));
        assertThat(deltas.getLast()).isEqualTo(new Delta.UsageDelta(new Usage(120, 45, 300, 10)));
    }

    @Test
    void itsTargetIsTheProviderAndTheModelItAsksForBeforeAnyCall() {
        assertThat(builder().build().target()).isEqualTo(new ModelTarget("anthropic", "claude-test"));
        assertThat(server.getRequestCount()).isZero();
    }
}
