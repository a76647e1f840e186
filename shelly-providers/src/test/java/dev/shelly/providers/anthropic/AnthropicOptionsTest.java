package dev.shelly.providers.anthropic;

import static dev.shelly.providers.Fixtures.assertJson;
import static dev.shelly.providers.Fixtures.json;
import static dev.shelly.providers.Fixtures.sse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelOptions.CacheHints;
import dev.shelly.modeladapter.ModelOptions.Reasoning;
import dev.shelly.modeladapter.ModelOptions.ToolChoice;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ResponseFormat;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.provider.spi.WireFormat;
import dev.shelly.providers.Fixtures;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;

/** Every option of a request on the Messages API's wire, every refusal, cache breakpoints, JSON answers. */
class AnthropicOptionsTest {
    private static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"done\":{\"type\":\"boolean\"}},"
            + "\"required\":[\"done\"],\"additionalProperties\":false}";
    private static final ResponseFormat.JsonSchema DECISION = ResponseFormat.jsonSchema("Decision", SCHEMA, true);
    private static final ToolDefinition LOOKUP = new ToolDefinition("lookup", "Look it up", "{\"type\":\"object\"}");

    @StartStop
    private final MockWebServer server = new MockWebServer();

    private static AnthropicCompleter.Builder builder(String model) {
        return AnthropicCompleter.builder().model(model).apiKey("sk-ant-test-key-0123456789")
                .environment(name -> null).retry(RetryPolicy.none());
    }

    private static String body(WireFormat format, ModelRequest request) {
        return new String(format.request(request, false), StandardCharsets.UTF_8);
    }

    private static ModelRequest ask(UnaryOperator<ModelRequest.Builder> options) {
        return options.apply(ModelRequest.builder().message(Message.user("hi"))).build();
    }

    @Test
    void everySamplingOptionAndTheToolChoiceGoOnTheWire() {
        WireFormat format = builder("claude-sonnet-4-5").wireFormat();
        String body = body(format, ask(b -> b.tools(List.of(LOOKUP)).toolChoice(ToolChoice.named("lookup"))
                .maxTokens(2000).temperature(0.2).topP(0.9).stop("END", "STOP")));
        assertJson(body, """
                {"model":"claude-sonnet-4-5","max_tokens":2000,"temperature":0.2,"top_p":0.9,
                 "stop_sequences":["END","STOP"],
                 "messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],
                 "tools":[{"name":"lookup","description":"Look it up","input_schema":{"type":"object"}}],
                 "tool_choice":{"type":"tool","name":"lookup"}}""");
    }

    @Test
    void eachToolChoiceHasItsWireFormAndNoToolsMeansNoChoice() {
        WireFormat format = builder("claude-sonnet-4-5").wireFormat();
        String[] expected = {"{\"type\":\"auto\"}", "{\"type\":\"none\"}", "{\"type\":\"any\"}"};
        ToolChoice[] choices = {ToolChoice.AUTO, ToolChoice.NONE, ToolChoice.REQUIRED};
        for (int i = 0; i < choices.length; i++) {
            ToolChoice choice = choices[i];
            assertThat(body(format, ask(b -> b.tools(List.of(LOOKUP)).toolChoice(choice))))
                    .endsWith("\"tool_choice\":" + expected[i] + "}");
        }
        assertThat(body(format, ask(b -> b.toolChoice(ToolChoice.NONE)))).doesNotContain("tool_choice");
        assertThat(body(format, ask(b -> b.tools(List.of(LOOKUP))))).doesNotContain("tool_choice");
    }

    @Test
    void theRequestsOptionsWinOverTheProvidersDefaultsFieldByField() {
        WireFormat format = builder("claude-sonnet-4-5").maxTokens(8000).temperature(0.5).stop("X").wireFormat();
        assertJson(body(format, ask(b -> b.maxTokens(3000).topP(0.8))), """
                {"model":"claude-sonnet-4-5","max_tokens":3000,"temperature":0.5,"top_p":0.8,"stop_sequences":["X"],
                 "messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}""");
        WireFormat thinking = builder("claude-sonnet-4-5").options(ModelOptions.builder().maxTokens(8000).build())
                .wireFormat();
        assertJson(body(thinking, ask(b -> b.reasoning(Reasoning.budget(2048)))), """
                {"model":"claude-sonnet-4-5","max_tokens":8000,"thinking":{"type":"enabled","budget_tokens":2048},
                 "messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}""");
    }

    @Test
    void thinkingAloneIsSentWithTheDefaultMaxTokens() {
        WireFormat format = builder("claude-sonnet-4-5").thinkingBudget(2048).wireFormat();
        assertJson(body(format, ask(b -> b)), """
                {"model":"claude-sonnet-4-5","max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":2048},
                 "messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}""");
    }

    private void assertRefused(AnthropicCompleter.Builder settings, ModelRequest request, String message) {
        server.enqueue(json(200, AnthropicCompleterTest.REPLY));
        AnthropicCompleter completer = settings.baseUrl(server.url("/").toString()).retry(RetryPolicy.defaults())
                .sleeper(d -> { throw new AssertionError("a refusal is never retried"); }).build();
        assertThatThrownBy(() -> completer.complete(request))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ModelException.Kind.INVALID_REQUEST);
                    assertThat(e.retryable()).isFalse();
                    assertThat(e.providerMessage()).contains(message);
                });
        assertThat(server.getRequestCount()).as("refused before any HTTP").isZero();
    }

    @Test
    void optionsTheMessagesApiCannotTakeAreRefusedBeforeAnyHttp() {
        AnthropicCompleter.Builder b = builder("claude-sonnet-4-5");
        assertRefused(b, ask(r -> r.reasoning(Reasoning.effort("high"))), "Reasoning.effort(\"high\") is not supported: "
                + "Anthropic takes a thinking budget, Reasoning.budget(tokens) of at least 1024 and below maxTokens");
        assertRefused(b, ask(r -> r.reasoning(Reasoning.budget(512))),
                "Reasoning.budget(512) is below Anthropic's minimum of 1024 thinking tokens");
        assertRefused(b, ask(r -> r.reasoning(Reasoning.budget(8192))),
                "Reasoning.budget(8192) must be less than maxTokens (4096)");
        assertRefused(b, ask(r -> r.reasoning(Reasoning.budget(2048)).tools(List.of(LOOKUP))
                .toolChoice(ToolChoice.REQUIRED)), "tool choice REQUIRED cannot be combined with extended thinking: "
                + "Anthropic allows only AUTO or NONE while thinking");
        assertRefused(b, ask(r -> r.reasoning(Reasoning.budget(2048)).temperature(0.5)),
                "temperature cannot be set while extended thinking is on");
        assertRefused(b, ask(r -> r.reasoning(Reasoning.budget(2048)).topP(0.9)),
                "topP must be between 0.95 and 1 while extended thinking is on, was 0.9");
        assertRefused(b, ask(r -> r.temperature(1.5)), "temperature must be between 0 and 1, was 1.5");
        assertRefused(b, ask(r -> r.cache(new CacheHints(true, true, Duration.ofMinutes(10)))),
                "cache ttl must be 5 minutes or 1 hour, was PT10M");
        assertRefused(builder("claude-3-5-haiku-latest"), ask(r -> r.reasoning(Reasoning.budget(2048))
                .responseFormat(DECISION)), "a JSON response format on model 'claude-3-5-haiku-latest' needs a forced "
                + "tool, which extended thinking does not allow");
        assertRefused(builder("claude-3-5-haiku-latest"), ask(r -> r.tools(List.of(new ToolDefinition("final_answer",
                "", "{\"type\":\"object\"}"))).responseFormat(DECISION)),
                "a tool is named 'final_answer', the name the JSON response format's forced tool needs");
        assertRefused(b, ask(r -> r.responseFormat(ResponseFormat.jsonSchema("Decision", "[1]", true))),
                "ResponseFormat.jsonSchema 'Decision': the schema is not a JSON object");
    }

    @Test
    void theExactRefusalMessage() {
        WireFormat format = builder("claude-sonnet-4-5").wireFormat();
        assertThatThrownBy(() -> format.request(ask(r -> r.temperature(1.5)), false))
                .hasMessage("anthropic: invalid request: temperature must be between 0 and 1, was 1.5");
    }

    // ---- cache breakpoints ------------------------------------------------------------------

    private static ModelRequest loop(CacheHints cache, boolean system) {
        List<Message> messages = new ArrayList<>();
        if (system) {
            messages.add(Message.system("You are terse."));
        }
        messages.add(Message.user("weather?"));
        messages.add(Message.of("bot", Role.ASSISTANT, Thinking.of("Look it up.", "sig"),
                new ToolCall("toolu_1", "lookup", "{\"q\":\"Paris\"}")));
        messages.add(Message.of("tools", Role.TOOL, ToolResult.of("toolu_1", "sunny")));
        return ModelRequest.builder().messages(messages).tools(List.of(LOOKUP)).cache(cache).build();
    }

    @Test
    void cachingPutsABreakpointOnTheSystemBlockAndOnTheLastBlockOfTheConversation() {
        WireFormat format = builder("claude-sonnet-4-5").wireFormat();
        assertJson(body(format, loop(CacheHints.ON, true)), """
                {"model":"claude-sonnet-4-5","max_tokens":4096,
                 "system":[{"type":"text","text":"You are terse.","cache_control":{"type":"ephemeral"}}],
                 "messages":[
                   {"role":"user","content":[{"type":"text","text":"weather?"}]},
                   {"role":"assistant","content":[
                     {"type":"thinking","thinking":"Look it up.","signature":"sig"},
                     {"type":"tool_use","id":"toolu_1","name":"lookup","input":{"q":"Paris"}}]},
                   {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"sunny",
                     "cache_control":{"type":"ephemeral"}}]}],
                 "tools":[{"name":"lookup","description":"Look it up","input_schema":{"type":"object"}}]}""");
    }

    @Test
    void withoutASystemPromptThePrefixBreakpointGoesOnTheLastToolAndAnHourTtlIsSent() {
        WireFormat format = builder("claude-sonnet-4-5").wireFormat();
        String body = body(format, loop(new CacheHints(true, false, Duration.ofHours(1)), false));
        assertThat(body).contains("\"input_schema\":{\"type\":\"object\"},\"cache_control\":{\"type\":\"ephemeral\","
                + "\"ttl\":\"1h\"}}]").doesNotContain("\"content\":\"sunny\",\"cache_control\"");
    }

    @Test
    void theConversationBreakpointSkipsThinkingBlocks() {
        WireFormat format = builder("claude-sonnet-4-5").wireFormat();
        ModelRequest request = ModelRequest.builder()
                .message(Message.user("go"), Message.of("bot", Role.ASSISTANT, new Text("Let me see."),
                        Thinking.of("hidden", "sig")))
                .cache(new CacheHints(false, true, Duration.ofMinutes(5))).build();
        assertThat(body(format, request)).contains("{\"type\":\"text\",\"text\":\"Let me see.\",\"cache_control\":"
                + "{\"type\":\"ephemeral\"}},{\"type\":\"thinking\",\"thinking\":\"hidden\",\"signature\":\"sig\"}");
    }

    @Test
    void cacheOffKeepsTheSystemPromptAString() {
        WireFormat format = builder("claude-sonnet-4-5").wireFormat();
        for (CacheHints off : new CacheHints[] {null, CacheHints.OFF}) {
            String body = body(format, loop(off, true));
            assertThat(body).contains("\"system\":\"You are terse.\"").doesNotContain("cache_control");
        }
    }

    // ---- JSON answers -----------------------------------------------------------------------

    @Test
    void aStrictSchemaOnAClaude45ModelGoesNativelyAsOutputConfig() {
        WireFormat format = builder("claude-sonnet-4-5").wireFormat();
        assertJson(body(format, ask(b -> b.responseFormat(DECISION))), """
                {"model":"claude-sonnet-4-5","max_tokens":4096,
                 "messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],
                 "output_config":{"format":{"type":"json_schema","schema":%s}}}""".formatted(SCHEMA));
    }

    @Test
    void olderModelsAndLooseSchemasGetAForcedAnswerTool() {
        String tool = "{\"name\":\"final_answer\",\"description\":\"Give your final answer by calling this tool once, "
                + "with the answer as its input.\",\"input_schema\":" + SCHEMA + "}";
        WireFormat old = builder("claude-sonnet-4-20250514").wireFormat();
        assertJson(body(old, ask(b -> b.responseFormat(DECISION))), """
                {"model":"claude-sonnet-4-20250514","max_tokens":4096,
                 "messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],
                 "tools":[%s],"tool_choice":{"type":"tool","name":"final_answer"}}""".formatted(tool));
        WireFormat loose = builder("claude-sonnet-4-5").wireFormat();
        assertThat(body(loose, ask(b -> b.tools(List.of(LOOKUP))
                .responseFormat(ResponseFormat.jsonSchema("Decision", SCHEMA, false)))))
                .as("a real tool or the answer").contains(tool + "],\"tool_choice\":{\"type\":\"any\"}");
        WireFormat forced = builder("claude-sonnet-4-5").structuredOutputs(AnthropicCompleter.StructuredOutputs.TOOL)
                .wireFormat();
        assertThat(body(forced, ask(b -> b.tools(List.of(LOOKUP)).toolChoice(ToolChoice.NONE).responseFormat(DECISION))))
                .endsWith("\"tool_choice\":{\"type\":\"tool\",\"name\":\"final_answer\"}}");
    }

    private static final String ANSWER_REPLY = """
            {"id":"msg_9","type":"message","role":"assistant","model":"claude-sonnet-4-20250514",
             "content":[{"type":"tool_use","id":"toolu_9","name":"final_answer","input":{"done": true}}],
             "stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5}}""";

    private static final String ANSWER_STREAM = """
            event: message_start
            data: {"type":"message_start","message":{"id":"msg_9","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}

            event: content_block_start
            data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_9","name":"final_answer","input":{}}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"done\\": "}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"true}"}}

            event: content_block_stop
            data: {"type":"content_block_stop","index":0}

            event: message_delta
            data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}

            event: message_stop
            data: {"type":"message_stop"}

            """;

    @Test
    void theForcedAnswerComesBackAsTextStreamedOrNot() {
        server.enqueue(json(200, ANSWER_REPLY));
        server.enqueue(sse(ANSWER_STREAM));
        AnthropicCompleter completer = builder("claude-sonnet-4-20250514").baseUrl(server.url("/").toString()).build();
        ModelRequest request = ask(b -> b.responseFormat(DECISION));

        ModelResponse whole = completer.complete(request);
        List<Delta> deltas = new ArrayList<>();
        ModelResponse streamed = completer.complete(request, deltas::add);

        assertThat(whole.message().parts()).containsExactly(new Text("{\"done\":true}"));
        assertThat(whole.stopReason()).isEqualTo(StopReason.END_TURN);
        assertThat(whole.providerStopReason()).isEqualTo("tool_use");
        assertThat(streamed).isEqualTo(whole);
        assertThat(deltas).filteredOn(d -> !(d instanceof Delta.UsageDelta))
                .containsExactly(new Delta.TextDelta("{\"done\": "), new Delta.TextDelta("true}"));
    }

    @Test
    void anAnswerBesideRealToolCallsIsDroppedAndTheCallsStay() {
        server.enqueue(json(200, """
                {"id":"msg_9","type":"message","role":"assistant","model":"m",
                 "content":[{"type":"tool_use","id":"toolu_1","name":"lookup","input":{}},
                            {"type":"tool_use","id":"toolu_9","name":"final_answer","input":{"done":false}}],
                 "stop_reason":"tool_use"}"""));
        AnthropicCompleter completer = builder("claude-3-5-haiku-latest").baseUrl(server.url("/").toString()).build();
        ModelResponse response = completer.complete(ask(b -> b.tools(List.of(LOOKUP)).responseFormat(DECISION)));
        assertThat(response.message().parts()).containsExactly(new ToolCall("toolu_1", "lookup", "{}"));
        assertThat(response.stopReason()).isEqualTo(StopReason.TOOL_USE);
    }

    @Test
    void withoutAJsonFormatACallNamedFinalAnswerIsAnOrdinaryToolCall() {
        server.enqueue(json(200, ANSWER_REPLY));
        AnthropicCompleter completer = builder("claude-sonnet-4-20250514").baseUrl(server.url("/").toString()).build();
        ModelResponse response = completer.complete(Fixtures.request(dev.shelly.chats.Chat.of(Message.user("hi")),
                List.of(new ToolDefinition("final_answer", "", "{\"type\":\"object\"}"))));
        assertThat(response.message().toolCalls()).containsExactly(new ToolCall("toolu_9", "final_answer",
                "{\"done\":true}"));
    }
}
