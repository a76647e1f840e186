package dev.shelly.providers.openai;

import static dev.shelly.providers.Fixtures.assertJson;
import static dev.shelly.providers.Fixtures.sse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import dev.shelly.modeladapter.ModelOptions.Reasoning;
import dev.shelly.modeladapter.ModelOptions.ToolChoice;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ResponseFormat;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.provider.spi.WireFormat;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.UnaryOperator;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;

/** What only the Responses API has: reasoning items carried between turns, its options, incomplete and failed replies. */
class ResponsesFormatTest {
    private static final ToolDefinition LOOKUP = new ToolDefinition("lookup", "Look it up", "{\"type\":\"object\"}");

    @StartStop
    private final MockWebServer server = new MockWebServer();

    private static WireFormat format() {
        return OpenAiCompleter.builder().api(OpenAiCompleter.Api.RESPONSES).model("gpt-5").environment(n -> null)
                .wireFormat();
    }

    private static String body(ModelRequest request, boolean stream) {
        return new String(format().request(request, stream), StandardCharsets.UTF_8);
    }

    private static ModelRequest ask(UnaryOperator<ModelRequest.Builder> options) {
        return options.apply(ModelRequest.builder().message(Message.user("hi"))).build();
    }

    @Test
    void reasoningItemsGoBackWithTheirEncryptedContentBeforeTheCallsTheyLedTo() {
        ModelRequest first = ModelRequest.builder().message(Message.user("Weather in Paris?")).tools(List.of(LOOKUP)).build();
        ModelResponse reply = format().reply(ResponsesContractTest.REPLY.getBytes(StandardCharsets.UTF_8), first);
        assertThat(reply).isEqualTo(ResponsesContractTest.EXPECTED);

        ModelRequest second = ModelRequest.builder().message(Message.user("Weather in Paris?"), reply.message(),
                Message.of("tools", Role.TOOL, ToolResult.of("call_a", "15C"), ToolResult.error("call_b", "no clock")),
                // Thinking from another provider has no reasoning item to send back: it is left out.
                Message.of("bot", Role.ASSISTANT, Thinking.of("unsigned", null), Thinking.of("signed", "sig-anthropic")))
                .build();
        assertJson(body(second, false), """
                {"model":"gpt-5","input":[
                  {"role":"user","content":"Weather in Paris?"},
                  {"type":"reasoning","id":"%s","summary":[{"type":"summary_text","text":"Two lookups."}],
                   "encrypted_content":"%s"},
                  {"role":"assistant","content":"Checking both."},
                  {"type":"function_call","call_id":"call_a","name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"},
                  {"type":"function_call","call_id":"call_b","name":"get_time","arguments":"{}"},
                  {"type":"function_call_output","call_id":"call_a","output":"15C"},
                  {"type":"function_call_output","call_id":"call_b","output":"no clock"}],
                 "store":false,"include":["reasoning.encrypted_content"]}
                """.formatted(ResponsesContractTest.REASONING_ID, ResponsesContractTest.ENCRYPTED));
    }

    @Test
    void everyOptionGoesOnTheWireInItsPlace() {
        String schema = "{\"type\":\"object\",\"properties\":{\"done\":{\"type\":\"boolean\"}},\"required\":[\"done\"],"
                + "\"additionalProperties\":false}";
        assertJson(body(ask(b -> b.message(Message.system("Be brief.")).tools(List.of(LOOKUP))
                .toolChoice(ToolChoice.named("lookup")).responseFormat(ResponseFormat.jsonSchema("Decision", schema, true))
                .maxTokens(2048).temperature(0.2).topP(0.9).reasoning(Reasoning.effort("low"))), true), """
                {"model":"gpt-5","instructions":"Be brief.","input":[{"role":"user","content":"hi"}],
                 "tools":[{"type":"function","name":"lookup","description":"Look it up","parameters":{"type":"object"},
                   "strict":false}],
                 "tool_choice":{"type":"function","name":"lookup"},
                 "text":{"format":{"type":"json_schema","name":"Decision","schema":%s,"strict":true}},
                 "max_output_tokens":2048,"temperature":0.2,"top_p":0.9,"reasoning":{"effort":"low"},
                 "store":false,"include":["reasoning.encrypted_content"],"stream":true}""".formatted(schema));
        assertThat(body(ask(b -> b.tools(List.of(LOOKUP)).toolChoice(ToolChoice.AUTO)), false)).contains("\"tool_choice\":\"auto\"");
        assertThat(body(ask(b -> b.tools(List.of(LOOKUP)).toolChoice(ToolChoice.NONE)), false)).contains("\"tool_choice\":\"none\"");
        assertThat(body(ask(b -> b.tools(List.of(LOOKUP)).toolChoice(ToolChoice.REQUIRED)), false))
                .contains("\"tool_choice\":\"required\"");
        assertThat(body(ask(b -> b.toolChoice(ToolChoice.NONE)), false)).doesNotContain("tool_choice");
    }

    @Test
    void optionsTheResponsesApiCannotTakeAreRefusedBeforeAnyHttp() {
        assertThatThrownBy(() -> body(ask(b -> b.stop("END")), false))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.INVALID_REQUEST))
                .hasMessage("openai: invalid request: stop sequences cannot be sent: the Responses API has no stop parameter");
        assertThatThrownBy(() -> body(ask(b -> b.reasoning(Reasoning.budget(2048))), false))
                .hasMessage("openai: invalid request: Reasoning.budget(2048) is not supported: the Responses API takes a"
                        + " reasoning effort, Reasoning.effort(\"low\"|\"medium\"|\"high\")");
        assertThatThrownBy(() -> body(ask(b -> b.temperature(2.5)), false))
                .hasMessage("openai: invalid request: temperature must be between 0 and 2, was 2.5");
    }

    @Test
    void incompleteAndRefusedRepliesHaveTheirStopReasons() {
        ModelResponse cut = format().reply("""
                {"id":"resp_1","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"model":"gpt-5",
                 "output":[{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA"}],
                 "usage":{"input_tokens":10,"output_tokens":64,"output_tokens_details":{"reasoning_tokens":64},"total_tokens":74}}
                """.getBytes(StandardCharsets.UTF_8), ask(b -> b));
        assertThat(cut.stopReason()).isEqualTo(StopReason.MAX_TOKENS);
        assertThat(cut.providerStopReason()).isEqualTo("max_output_tokens");
        assertThat(cut.message().parts()).containsExactly(Thinking.of("", "rs_1:gAAA").withOrigin("openai-responses:openai"));
        assertThat(cut.usage().reasoningTokens()).isEqualTo(64);

        ModelResponse refused = format().reply("""
                {"id":"resp_2","status":"completed","model":"gpt-5","output":[{"type":"message","id":"msg_1","role":"assistant",
                 "content":[{"type":"refusal","refusal":"I can't help with that."}]}]}
                """.getBytes(StandardCharsets.UTF_8), ask(b -> b));
        assertThat(refused.stopReason()).isEqualTo(StopReason.REFUSAL);
        assertThat(refused.message().text()).isEqualTo("I can't help with that.");
    }

    @Test
    void aFailedResponseInAStreamFailsWithItsKind() {
        server.enqueue(sse("""
                event: response.created
                data: {"type":"response.created","response":{"id":"resp_3","status":"in_progress","output":[]}}

                event: response.failed
                data: {"type":"response.failed","response":{"id":"resp_3","status":"failed","error":{"code":"rate_limit_exceeded","message":"Rate limit reached for gpt-5"},"output":[]}}

                """));
        assertThatThrownBy(() -> OpenAiCompleter.builder().api(OpenAiCompleter.Api.RESPONSES).baseUrl(server.url("/v1").toString())
                .apiKey("k").model("gpt-5").environment(n -> null).retry(RetryPolicy.none()).build()
                .complete(ask(b -> b), d -> { }))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.RATE_LIMITED);
                    assertThat(e.getMessage()).isEqualTo("openai: rate limited: Rate limit reached for gpt-5");
                });
    }

    @Test
    void aResponseThatFailedForItsLengthIsAContextOverflowNamingTheModel() {
        server.enqueue(sse("""
                event: response.failed
                data: {"type":"response.failed","response":{"id":"resp_4","status":"failed","error":{"code":"context_length_exceeded","message":"Your input exceeds the context window of this model. Please adjust your input and try again."},"output":[]}}

                """));
        assertThatThrownBy(() -> OpenAiCompleter.builder().api(OpenAiCompleter.Api.RESPONSES).baseUrl(server.url("/v1").toString())
                .apiKey("k").model("gpt-5").environment(n -> null).retry(RetryPolicy.none()).build()
                .complete(ask(b -> b), d -> { }))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.CONTEXT_LENGTH_EXCEEDED))
                .hasMessage("openai: context length exceeded: the request does not fit the context window of model gpt-5: "
                        + "Your input exceeds the context window of this model. Please adjust your input and try again.");
    }

    @Test
    void theApiIsChosenByItsConfigurationName() {
        assertThat(OpenAiCompleter.Api.of("responses")).isEqualTo(OpenAiCompleter.Api.RESPONSES);
        assertThat(OpenAiCompleter.Api.of(" Chat ")).isEqualTo(OpenAiCompleter.Api.CHAT_COMPLETIONS);
        assertThatThrownBy(() -> OpenAiCompleter.Api.of("assistants"))
                .hasMessage("unknown OpenAI api 'assistants'; expected chat or responses");
        assertThat(OpenAiCompleter.builder().api(OpenAiCompleter.Api.RESPONSES).model("m").apiKey("k")
                .environment(n -> null).build().toString())
                .isEqualTo("OpenAiCompleter[name=openai, model=m, baseUrl=https://api.openai.com/v1, api=responses]");
    }
}
