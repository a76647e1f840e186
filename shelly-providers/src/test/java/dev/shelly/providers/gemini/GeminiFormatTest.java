package dev.shelly.providers.gemini;

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
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
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
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What only Gemini has: thought signatures, made-up call ids, its schema subset, its options, blocks and quotas. */
class GeminiFormatTest {
    private static final ToolDefinition LOOKUP = new ToolDefinition("lookup", "Look it up", "{\"type\":\"object\"}");

    @StartStop
    private final MockWebServer server = new MockWebServer();

    private static WireFormat format() {
        return GeminiCompleter.builder().model("gemini-3-pro-preview").environment(n -> null).wireFormat();
    }

    private static String body(ModelRequest request) {
        return new String(format().request(request, false), StandardCharsets.UTF_8);
    }

    private static ModelRequest ask(UnaryOperator<ModelRequest.Builder> options) {
        return options.apply(ModelRequest.builder().message(Message.user("hi"))).build();
    }

    private GeminiCompleter.Builder builder() {
        return GeminiCompleter.builder().baseUrl(server.url("/").toString()).apiKey("k-gemini-0123456789")
                .model("gemini-3-pro-preview").environment(n -> null).retry(RetryPolicy.none());
    }

    // ---- thought signatures and ids ------------------------------------------------------

    /** Gemini 3 with parallel calls: the signature is on the first call only, neither call has an id. */
    private static final String PARALLEL = """
            {"candidates":[{"content":{"role":"model","parts":[
               {"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"<Sig_A>"},
               {"functionCall":{"name":"get_weather","args":{"city":"London"}}}]},
              "finishReason":"STOP"}],
             "usageMetadata":{"promptTokenCount":50,"candidatesTokenCount":20,"totalTokenCount":90,"thoughtsTokenCount":20},
             "modelVersion":"gemini-3-pro-preview","responseId":"r-1"}""";

    @Test
    void thoughtSignaturesGoBackOnThePartsTheyCameOnAndMadeUpIdsAreNeverSent() {
        ModelRequest first = ModelRequest.builder().message(Message.user("Weather in Paris and London?")).build();
        ModelResponse reply = format().reply(PARALLEL.getBytes(StandardCharsets.UTF_8), first);
        List<ToolCall> calls = reply.message().toolCalls();
        assertThat(calls).hasSize(2);
        assertThat(calls.get(0).id()).startsWith("gcall_").hasSize(22).isNotEqualTo(calls.get(1).id());
        assertThat(reply.message().parts().getFirst()).isEqualTo(Thinking.redacted("<Sig_A>").withOrigin("gemini"));
        assertThat(reply.stopReason()).isEqualTo(StopReason.TOOL_USE);

        ModelRequest second = ModelRequest.builder().message(Message.user("Weather in Paris and London?"), reply.message(),
                Message.of("tools", Role.TOOL, ToolResult.of(calls.get(0).id(), "15C"), ToolResult.of(calls.get(1).id(), "12C")))
                .build();
        assertJson(body(second), """
                {"contents":[
                  {"role":"user","parts":[{"text":"Weather in Paris and London?"}]},
                  {"role":"model","parts":[
                    {"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"<Sig_A>"},
                    {"functionCall":{"name":"get_weather","args":{"city":"London"}}}]},
                  {"role":"user","parts":[
                    {"functionResponse":{"name":"get_weather","response":{"output":"15C"}}},
                    {"functionResponse":{"name":"get_weather","response":{"output":"12C"}}}]}]}""");

        ModelResponse later = format().reply(PARALLEL.getBytes(StandardCharsets.UTF_8), second);
        assertThat(later.message().toolCalls().getFirst().id()).as("another turn, another id")
                .isNotEqualTo(calls.get(0).id());
    }

    @Test
    void aSignatureOnTextAndOnAThoughtIsKeptWhereItCameAndATrailingOneGoesBackOnAnEmptyPart() {
        String stream = """
                data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Let me think","thought":true,"thoughtSignature":"T1"}]}}],"responseId":"r2"}

                data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hello"}]}}],"responseId":"r2"}

                data: {"candidates":[{"content":{"role":"model","parts":[{"text":" there."}]}}],"responseId":"r2"}

                data: {"candidates":[{"content":{"role":"model","parts":[{"text":"","thoughtSignature":"T2"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":9,"totalTokenCount":10},"responseId":"r2"}

                """;
        server.enqueue(sse(stream));
        ModelResponse streamed = builder().build().complete(ask(b -> b), d -> { });
        assertThat(streamed.message().parts()).containsExactly(Thinking.of("Let me think", "T1").withOrigin("gemini"),
                Thinking.redacted("T2").withOrigin("gemini"),
                new Text("Hello there."));
        assertThat(streamed.stopReason()).isEqualTo(StopReason.END_TURN);

        ModelRequest next = ModelRequest.builder().message(Message.user("hi"), streamed.message(),
                Message.of("bot", Role.ASSISTANT, Thinking.redacted("T3"))).build();
        assertJson(body(next), """
                {"contents":[
                  {"role":"user","parts":[{"text":"hi"}]},
                  {"role":"model","parts":[
                    {"text":"Let me think","thought":true,"thoughtSignature":"T1"},
                    {"text":"Hello there.","thoughtSignature":"T2"},
                    {"text":"","thoughtSignature":"T3"}]}]}""");
    }

    // ---- schemas -------------------------------------------------------------------------

    @Test
    void toolSchemasAreTurnedIntoGeminisSubset() {
        ToolDefinition tool = new ToolDefinition("plan", "Make a plan", """
                {"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,
                 "properties":{
                   "title":{"type":["string","null"],"format":"uri","maxLength":80},
                   "mode":{"const":"fast"},
                   "step":{"$ref":"#/$defs/step"},
                   "either":{"oneOf":[{"type":"string"},{"type":"integer","exclusiveMinimum":0}]},
                   "maybe":{"anyOf":[{"type":"number"},{"type":"null"}]},
                   "when":{"type":"string","format":"date-time"}},
                 "required":["step"],
                 "$defs":{"step":{"type":"object","properties":{"name":{"type":"string","enum":["a","b",null]}}}}}""");
        assertJson(body(ask(b -> b.tools(List.of(tool)))), """
                {"contents":[{"role":"user","parts":[{"text":"hi"}]}],
                 "tools":[{"functionDeclarations":[{"name":"plan","description":"Make a plan","parameters":
                   {"type":"object","properties":{
                     "title":{"type":"string","nullable":true,"maxLength":80},
                     "mode":{"enum":["fast"]},
                     "step":{"type":"object","properties":{"name":{"type":"string","nullable":true,"enum":["a","b"]}}},
                     "either":{"anyOf":[{"type":"string"},{"type":"integer"}]},
                     "maybe":{"nullable":true,"type":"number"},
                     "when":{"type":"string","format":"date-time"}},
                    "required":["step"]}}]}]}""");
    }

    @Test
    void whatTheSubsetCannotSayIsRefusedNamingTheToolTheKeywordAndWhere() {
        ToolDefinition negated = new ToolDefinition("search", "", """
                {"type":"object","properties":{"q":{"type":"string","not":{"const":""}}}}""");
        assertThatThrownBy(() -> body(ask(b -> b.tools(List.of(negated)))))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.INVALID_REQUEST);
                    assertThat(e.retryable()).isFalse();
                })
                .hasMessage("gemini: invalid request: tool 'search': its input schema cannot be sent to Gemini: 'not' at"
                        + " properties.q.not is not part of Gemini's schema subset");
        ToolDefinition tree = new ToolDefinition("tree", "", """
                {"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},
                 "$defs":{"node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}""");
        assertThatThrownBy(() -> body(ask(b -> b.tools(List.of(tree)))))
                .hasMessage("gemini: invalid request: tool 'tree': its input schema cannot be sent to Gemini: '$ref' at"
                        + " properties.root.properties.children.items to '#/$defs/node' is recursive, which Gemini's schema"
                        + " cannot express");
        assertThatThrownBy(() -> body(ask(b -> b.responseFormat(ResponseFormat.jsonSchema("Pair",
                "{\"type\":\"array\",\"items\":[{\"type\":\"string\"},{\"type\":\"number\"}]}", false)))))
                .hasMessage("gemini: invalid request: ResponseFormat.jsonSchema 'Pair': the schema cannot be sent to Gemini:"
                        + " 'items' at items is a list of schemas (a tuple), which Gemini's schema does not have");
        assertThat(server.getRequestCount()).isZero();
    }

    // ---- options -------------------------------------------------------------------------

    @Test
    void everyOptionGoesOnTheWireInItsPlace() {
        String schema = "{\"type\":\"object\",\"properties\":{\"done\":{\"type\":\"boolean\"}},\"required\":[\"done\"],"
                + "\"additionalProperties\":false}";
        assertJson(body(ask(b -> b.message(Message.system("Be brief.")).tools(List.of(LOOKUP))
                .toolChoice(ToolChoice.named("lookup")).responseFormat(ResponseFormat.jsonSchema("Decision", schema, true))
                .maxTokens(2048).temperature(1.5).topP(0.9).stop("END", "STOP").reasoning(Reasoning.budget(1024)))), """
                {"systemInstruction":{"parts":[{"text":"Be brief."}]},
                 "contents":[{"role":"user","parts":[{"text":"hi"}]}],
                 "tools":[{"functionDeclarations":[{"name":"lookup","description":"Look it up","parameters":{"type":"object"}}]}],
                 "toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["lookup"]}},
                 "generationConfig":{"maxOutputTokens":2048,"temperature":1.5,"topP":0.9,"stopSequences":["END","STOP"],
                   "responseMimeType":"application/json",
                   "responseSchema":{"type":"object","properties":{"done":{"type":"boolean"}},"required":["done"]},
                   "thinkingConfig":{"thinkingBudget":1024,"includeThoughts":true}}}""");
        assertThat(body(ask(b -> b.reasoning(Reasoning.effort("low")))))
                .contains("\"thinkingConfig\":{\"thinkingLevel\":\"low\",\"includeThoughts\":true}");
        assertThat(body(ask(b -> b.tools(List.of(LOOKUP)).toolChoice(ToolChoice.AUTO))))
                .contains("\"toolConfig\":{\"functionCallingConfig\":{\"mode\":\"AUTO\"}}");
        assertThat(body(ask(b -> b.tools(List.of(LOOKUP)).toolChoice(ToolChoice.NONE))))
                .contains("\"functionCallingConfig\":{\"mode\":\"NONE\"}");
        assertThat(body(ask(b -> b.tools(List.of(LOOKUP)).toolChoice(ToolChoice.REQUIRED))))
                .contains("\"functionCallingConfig\":{\"mode\":\"ANY\"}");
        assertThat(body(ask(b -> b.toolChoice(ToolChoice.NONE)))).doesNotContain("toolConfig");
        assertThat(body(ask(b -> b.cache(CacheHints.ON)))).isEqualTo("{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}]}");
    }

    @Test
    void optionsGeminiCannotTakeAreRefusedBeforeAnyHttp() {
        assertThatThrownBy(() -> body(ask(b -> b.temperature(2.5))))
                .hasMessage("gemini: invalid request: temperature must be between 0 and 2, was 2.5");
        assertThatThrownBy(() -> body(ask(b -> b.stop("a", "b", "c", "d", "e", "f"))))
                .hasMessage("gemini: invalid request: at most 5 stop sequences, got 6");
        assertThatThrownBy(() -> body(ask(b -> b.cache(new CacheHints(true, true, Duration.of(1, ChronoUnit.HOURS))))))
                .hasMessage("gemini: invalid request: a cache ttl cannot be set: Gemini caches prompts on its own"
                        + " (implicit caching) and takes no ttl");
    }

    @Test
    void aBaseUrlThatNamesTheApiVersionIsNotGivenItTwiceAndAModelsPrefixIsDropped() throws Exception {
        server.enqueue(json(200, PARALLEL));
        GeminiCompleter.builder().baseUrl(server.url("/proxy/v1alpha").toString()).apiKey("k").model("models/gemini-x")
                .environment(n -> null).build().complete(ask(b -> b));
        RecordedRequest request = server.takeRequest();
        assertThat(request.getUrl().encodedPath()).isEqualTo("/proxy/v1alpha/models/gemini-x:generateContent");
    }

    // ---- finish reasons, blocks, quotas --------------------------------------------------

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"STOP, END_TURN", "MAX_TOKENS, MAX_TOKENS", "SAFETY, CONTENT_FILTER", "RECITATION, CONTENT_FILTER",
            "PROHIBITED_CONTENT, CONTENT_FILTER", "BLOCKLIST, CONTENT_FILTER", "SPII, CONTENT_FILTER",
            "IMAGE_SAFETY, CONTENT_FILTER", "LANGUAGE, CONTENT_FILTER", "MALFORMED_FUNCTION_CALL, OTHER",
            "OTHER, OTHER", "A_REASON_FROM_THE_FUTURE, OTHER"})
    void everyFinishReasonIsMapped(String wire, StopReason expected) {
        ModelResponse reply = format().reply(("{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"ok\"}]},"
                + "\"finishReason\":\"" + wire + "\"}]}").getBytes(StandardCharsets.UTF_8), ask(b -> b));
        assertThat(reply.stopReason()).isEqualTo(expected);
        assertThat(reply.providerStopReason()).isEqualTo(wire);
    }

    @Test
    void aBlockedPromptIsARefusedRequestStreamedOrNot() {
        String blocked = "{\"promptFeedback\":{\"blockReason\":\"PROHIBITED_CONTENT\"},\"usageMetadata\":{\"promptTokenCount\":8,"
                + "\"totalTokenCount\":8},\"modelVersion\":\"gemini-3-pro-preview\",\"responseId\":\"r3\"}";
        server.enqueue(json(200, blocked));
        server.enqueue(sse("data: " + blocked + "\n\n"));
        List<ModelException> failures = new ArrayList<>();
        for (boolean streamed : new boolean[] {false, true}) {
            try {
                if (streamed) {
                    builder().build().complete(ask(b -> b), d -> { });
                } else {
                    builder().build().complete(ask(b -> b));
                }
            } catch (ModelException e) {
                failures.add(e);
            }
        }
        assertThat(failures).hasSize(2).allSatisfy(e -> {
            assertThat(e.kind()).isEqualTo(Kind.INVALID_REQUEST);
            assertThat(e.retryable()).isFalse();
            assertThat(e.getMessage()).isEqualTo("gemini: invalid request: Gemini blocked the prompt (PROHIBITED_CONTENT)");
        });
    }

    @Test
    void theRetryDelayInTheBodyIsHonouredWhenNoHeaderSaysAndADailyQuotaIsNotRetried() {
        server.enqueue(GeminiContractTest.error(429, "You exceeded your current quota.", "RESOURCE_EXHAUSTED",
                "{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"13s\"}"));
        server.enqueue(json(200, PARALLEL));
        Fixtures.Sleeps sleeps = new Fixtures.Sleeps();
        builder().retry(RetryPolicy.defaults()).sleeper(sleeps).build().complete(ask(b -> b));
        assertThat(sleeps.delays).containsExactly(Duration.ofSeconds(13));

        server.enqueue(GeminiContractTest.error(429, "You exceeded your current quota.", "RESOURCE_EXHAUSTED",
                "{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\",\"violations\":[{\"quotaId\":"
                        + "\"GenerateRequestsPerDayPerProjectPerModel-FreeTier\"}]},"
                        + "{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"40s\"}"));
        assertThatThrownBy(() -> builder().retry(RetryPolicy.defaults()).sleeper(sleeps).build().complete(ask(b -> b)))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.QUOTA_EXCEEDED);
                    assertThat(e.retryable()).isFalse();
                });
        assertThat(server.getRequestCount()).isEqualTo(3);
    }
}
