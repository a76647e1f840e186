package dev.shelly.providers.openai;

import static dev.shelly.providers.Fixtures.assertJson;
import static dev.shelly.providers.Fixtures.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelOptions.CacheHints;
import dev.shelly.modeladapter.ModelOptions.Reasoning;
import dev.shelly.modeladapter.ModelOptions.ToolChoice;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ResponseFormat;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.modeladapter.Usage;
import dev.shelly.provider.spi.WireFormat;
import dev.shelly.providers.grok.GrokCompleter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;

/** Every option of a request on the Chat Completions wire (OpenAI, xAI, compatible servers) and every refusal. */
class ChatCompletionsOptionsTest {
    private static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"done\":{\"type\":\"boolean\"}},"
            + "\"required\":[\"done\"],\"additionalProperties\":false}";
    private static final ToolDefinition LOOKUP = new ToolDefinition("lookup", "Look it up", "{\"type\":\"object\"}");

    @StartStop
    private final MockWebServer server = new MockWebServer();

    private static String body(WireFormat format, ModelRequest request, boolean stream) {
        return new String(format.request(request, stream), StandardCharsets.UTF_8);
    }

    private static ModelRequest ask(UnaryOperator<ModelRequest.Builder> options) {
        return options.apply(ModelRequest.builder().message(Message.user("hi"))).build();
    }

    @Test
    void everyOptionGoesOnTheWireInItsPlace() {
        WireFormat format = OpenAiCompleter.builder().model("gpt-4.1").environment(n -> null).wireFormat();
        String body = body(format, ask(b -> b.tools(List.of(LOOKUP)).toolChoice(ToolChoice.named("lookup"))
                .responseFormat(ResponseFormat.jsonSchema("Decision", SCHEMA, true)).maxTokens(1024).temperature(0.2)
                .topP(0.9).stop("END").reasoning(Reasoning.effort("low"))), true);
        assertJson(body, """
                {"model":"gpt-4.1","messages":[{"role":"user","content":"hi"}],
                 "tools":[{"type":"function","function":{"name":"lookup","description":"Look it up",
                   "parameters":{"type":"object"}}}],
                 "tool_choice":{"type":"function","function":{"name":"lookup"}},
                 "response_format":{"type":"json_schema","json_schema":{"name":"Decision","schema":%s,"strict":true}},
                 "max_completion_tokens":1024,"temperature":0.2,"top_p":0.9,"stop":["END"],"reasoning_effort":"low",
                 "stream":true,"stream_options":{"include_usage":true}}""".formatted(SCHEMA));
    }

    @Test
    void toolChoicesAreStringsAndNeedTools() {
        WireFormat format = OpenAiCompleter.builder().model("gpt-4.1").environment(n -> null).wireFormat();
        assertThat(body(format, ask(b -> b.tools(List.of(LOOKUP)).toolChoice(ToolChoice.AUTO)), false))
                .contains("\"tool_choice\":\"auto\"");
        assertThat(body(format, ask(b -> b.tools(List.of(LOOKUP)).toolChoice(ToolChoice.NONE)), false))
                .contains("\"tool_choice\":\"none\"");
        assertThat(body(format, ask(b -> b.tools(List.of(LOOKUP)).toolChoice(ToolChoice.REQUIRED)), false))
                .contains("\"tool_choice\":\"required\"");
        assertThat(body(format, ask(b -> b.toolChoice(ToolChoice.NONE)), false)).doesNotContain("tool_choice");
    }

    @Test
    void cacheHintsProduceNoFieldAndTheCompatibleProfileUsesMaxTokens() {
        WireFormat format = OpenAiCompleter.compatible().model("llama3").baseUrl("http://localhost:11434/v1")
                .environment(n -> null).wireFormat();
        assertJson(body(format, ask(b -> b.cache(CacheHints.ON).maxTokens(64).stop("1", "2", "3", "4", "5")
                .temperature(3.0)), false), """
                {"model":"llama3","messages":[{"role":"user","content":"hi"}],"max_tokens":64,"temperature":3.0,
                 "stop":["1","2","3","4","5"]}""");
    }

    @Test
    void theProvidersDefaultsApplyUnderTheRequestsOwn() {
        WireFormat format = GrokCompleter.builder().model("grok-4").maxTokens(500).reasoningEffort("high").topP(0.5)
                .environment(n -> null).wireFormat();
        assertJson(body(format, ask(b -> b.maxTokens(100)), false), """
                {"model":"grok-4","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":100,
                 "top_p":0.5,"reasoning_effort":"high"}""");
    }

    private void assertRefused(OpenAiCompleter.Builder settings, ModelRequest request, String message) {
        server.enqueue(json(200, "{}"));
        OpenAiCompleter completer = settings.baseUrl(server.url("/v1").toString()).apiKey("sk-test-0123456789")
                .environment(n -> null).retry(RetryPolicy.defaults())
                .sleeper(d -> { throw new AssertionError("a refusal is never retried"); }).build();
        assertThatThrownBy(() -> completer.complete(request))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ModelException.Kind.INVALID_REQUEST);
                    assertThat(e.providerMessage()).contains(message);
                });
        assertThat(server.getRequestCount()).as("refused before any HTTP").isZero();
    }

    @Test
    void optionsTheseProvidersCannotTakeAreRefusedBeforeAnyHttp() {
        for (OpenAiCompleter.Builder b : List.of(OpenAiCompleter.builder().model("gpt-5"),
                GrokCompleter.builder().model("grok-4"))) {
            assertRefused(b, ask(r -> r.reasoning(Reasoning.budget(2048))), "Reasoning.budget(2048) is not supported: "
                    + "this provider takes a reasoning effort, Reasoning.effort(\"low\"|\"medium\"|\"high\")");
            assertRefused(b, ask(r -> r.stop("1", "2", "3", "4", "5")), "at most 4 stop sequences, got 5");
            assertRefused(b, ask(r -> r.temperature(2.5)), "temperature must be between 0 and 2, was 2.5");
            assertRefused(b, ask(r -> r.cache(new CacheHints(true, true, Duration.ofHours(1)))),
                    "a cache ttl cannot be set: this provider caches prompts on its own and takes no ttl");
            assertRefused(b, ask(r -> r.responseFormat(ResponseFormat.jsonSchema("Decision", "\"x\"", true))),
                    "ResponseFormat.jsonSchema 'Decision': the schema is not a JSON object");
        }
        assertRefused(OpenAiCompleter.compatible().model("llama3"),
                ask(r -> r.cache(new CacheHints(true, true, Duration.ofHours(1)))),
                "a cache ttl cannot be set: this provider caches prompts on its own and takes no ttl");
    }

    @Test
    void reasoningAndCachedTokensAreReported() {
        server.enqueue(json(200, """
                {"id":"c1","model":"gpt-5","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},
                  "finish_reason":"stop"}],
                 "usage":{"prompt_tokens":2000,"completion_tokens":300,"total_tokens":2300,
                  "prompt_tokens_details":{"cached_tokens":1536},"completion_tokens_details":{"reasoning_tokens":256}}}"""));
        ModelResponse response = OpenAiCompleter.builder().model("gpt-5").baseUrl(server.url("/v1").toString())
                .apiKey("sk-test-0123456789").environment(n -> null).retry(RetryPolicy.none()).build()
                .complete(ask(b -> b));
        assertThat(response.usage()).isEqualTo(new Usage(464, 300, 1536, 0, 256));
        assertThat(response.model()).isEqualTo("gpt-5");
        assertThat(response.message()).isEqualTo(Message.text("openai", Role.ASSISTANT, "ok"));
    }

    @Test
    void malformedArgumentsOfAnEarlierCallStillGoAsAnEmptyObjectOnEveryRequest() {
        WireFormat format = OpenAiCompleter.builder().model("gpt-4.1").environment(n -> null).wireFormat();
        ModelRequest request = ModelRequest.builder().message(Message.user("go"),
                Message.of("bot", Role.ASSISTANT, new ToolCall("c1", "lookup", "{\"q\":"),
                        new ToolCall("c2", "lookup", "{\"q\":1}"))).build();
        for (int i = 0; i < 3; i++) { // the second and third answers come from the memo
            assertThat(body(format, request, false)).contains("\"arguments\":\"{}\"")
                    .contains("\"arguments\":\"{\\\"q\\\":1}\"");
        }
    }
}
