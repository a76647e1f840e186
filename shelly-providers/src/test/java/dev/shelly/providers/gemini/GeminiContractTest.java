package dev.shelly.providers.gemini;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.Usage;
import dev.shelly.provider.spi.ProviderBuilder;
import dev.shelly.providers.Fixtures;
import dev.shelly.providers.ProviderContract;
import java.util.List;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;

/** The provider contract on Google's Gemini API, with fixtures shaped as its API reference shows them. */
class GeminiContractTest extends ProviderContract {
    /** The made-up id of the reply's first call: Gemini sent none; the conversation has 5 messages. */
    static final String WEATHER_ID = GeminiReply.madeUpId(5, "mF4ZaKDcE9qe1dkP", 0, "get_weather",
            "{\"city\":\"Paris\",\"unit\":\"celsius\"}");

    static final String REPLY = """
            {"candidates":[{"content":{"parts":[
                {"text":"Two lookups.","thought":true},
                {"text":"Checking both."},
                {"functionCall":{"name":"get_weather","args":{"city":"Paris","unit":"celsius"}},"thoughtSignature":"CiQBVKhc7sig=="},
                {"functionCall":{"id":"fc_time_1","name":"get_time","args":{}}}],
              "role":"model"},
              "finishReason":"STOP","index":0}],
             "usageMetadata":{"promptTokenCount":420,"candidatesTokenCount":45,"totalTokenCount":495,
              "cachedContentTokenCount":300,"thoughtsTokenCount":30,
              "promptTokensDetails":[{"modality":"TEXT","tokenCount":420}]},
             "modelVersion":"gemini-2.5-flash","responseId":"mF4ZaKDcE9qe1dkP"}
            """;

    private static String chunk(String parts, String finish, String usage) {
        return "data: {\"candidates\":[{\"content\":{\"parts\":" + parts + ",\"role\":\"model\"}"
                + (finish == null ? "" : ",\"finishReason\":\"" + finish + "\"") + ",\"index\":0}],"
                + "\"usageMetadata\":" + usage + ",\"modelVersion\":\"gemini-2.5-flash\",\"responseId\":\"mF4ZaKDcE9qe1dkP\"}\n\n";
    }

    private static final String EARLY_USAGE = "{\"promptTokenCount\":420,\"totalTokenCount\":420,\"cachedContentTokenCount\":300}";

    static final String STREAM = chunk("[{\"text\":\"Two \",\"thought\":true}]", null, EARLY_USAGE)
            + chunk("[{\"text\":\"lookups.\",\"thought\":true}]", null, EARLY_USAGE)
            + chunk("[{\"text\":\"Checking \"}]", null, EARLY_USAGE)
            + chunk("[{\"text\":\"both.\"}]", null, EARLY_USAGE)
            + chunk("[{\"functionCall\":{\"name\":\"get_weather\",\"args\":{\"city\":\"Paris\",\"unit\":\"celsius\"}},"
                    + "\"thoughtSignature\":\"CiQBVKhc7sig==\"}]", null, EARLY_USAGE)
            + chunk("[{\"functionCall\":{\"id\":\"fc_time_1\",\"name\":\"get_time\",\"args\":{}}}]", "STOP",
                    "{\"promptTokenCount\":420,\"candidatesTokenCount\":45,\"totalTokenCount\":495,"
                            + "\"cachedContentTokenCount\":300,\"thoughtsTokenCount\":30}");

    static final ModelResponse EXPECTED_REPLY = new ModelResponse(new Message("gemini", Role.ASSISTANT, List.of(
            Thinking.of("Two lookups.", null).withOrigin("gemini"),
            new Text("Checking both."),
            Thinking.redacted("CiQBVKhc7sig==").withOrigin("gemini"),
            new ToolCall(WEATHER_ID, "get_weather", "{\"city\":\"Paris\",\"unit\":\"celsius\"}"),
            new ToolCall("fc_time_1", "get_time", "{}"))),
            new Usage(120, 75, 300, 0, 30), StopReason.TOOL_USE, "STOP", "gemini-2.5-flash", "mF4ZaKDcE9qe1dkP", "gemini");

    @Override
    protected String name() {
        return "gemini";
    }

    @Override
    protected ProviderBuilder<?> newBuilder() {
        return GeminiCompleter.builder();
    }

    @Override
    protected String model() {
        return "gemini-2.5-flash";
    }

    @Override
    protected String basePath() {
        return "/";
    }

    @Override
    protected String expectedPath(boolean stream) {
        return stream ? "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
                : "/v1beta/models/gemini-2.5-flash:generateContent";
    }

    @Override
    protected List<String> keyVariables() {
        return List.of("GEMINI_API_KEY", "GOOGLE_API_KEY");
    }

    @Override
    protected String baseUrlVariable() {
        return "GEMINI_BASE_URL";
    }

    @Override
    protected void assertKeySent(RecordedRequest request, String key) {
        assertThat(request.getHeaders().get("x-goog-api-key")).isEqualTo(key);
        assertThat(request.getHeaders().get("Authorization")).isNull();
        assertThat(request.getUrl().queryParameter("key")).as("never in the URL").isNull();
    }

    @Override
    protected String conversationRequest() {
        return """
                {"systemInstruction":{"parts":[{"text":"You are terse."}]},
                 "contents":[
                  {"role":"user","parts":[
                    {"text":"What is in this picture?"},
                    {"inlineData":{"mimeType":"image/png","data":"%s"}}]},
                  {"role":"model","parts":[
                    {"text":"The user wants weather and time.","thought":true,"thoughtSignature":"sig-123"},
                    {"text":"Let me check."},
                    {"functionCall":{"id":"call_1","name":"get_weather","args":{"city":"Paris"}}},
                    {"functionCall":{"id":"call_2","name":"get_time","args":{"city":"Paris"}}}]},
                  {"role":"user","parts":[
                    {"functionResponse":{"id":"call_1","name":"get_weather","response":{"output":"14°C and sunny"}}},
                    {"functionResponse":{"id":"call_2","name":"get_time","response":{"error":"time service unavailable"}}},
                    {"text":"And this one?"},
                    {"fileData":{"mimeType":"image/jpeg","fileUri":"https://example.com/cat.jpg"}}]}],
                 "tools":[{"functionDeclarations":[
                  {"name":"get_weather","description":"Get the current weather",
                   "parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},
                  {"name":"get_time","description":"Get the local time",
                   "parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]}],
                 "generationConfig":{"maxOutputTokens":1024,"temperature":0.5}}
                """.formatted(Fixtures.PNG_BASE64);
    }

    @Override
    protected String streamFields() {
        return "{}";
    }

    @Override
    protected String reply() {
        return REPLY;
    }

    @Override
    protected String streamedReply() {
        return STREAM;
    }

    @Override
    protected ModelResponse expectedReply() {
        return EXPECTED_REPLY;
    }

    @Override
    protected String streamOf(String text) {
        return "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"" + text + "\"}],\"role\":\"model\"},"
                + "\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":3,\"totalTokenCount\":3},"
                + "\"modelVersion\":\"m\",\"responseId\":\"r1\"}\n\n"
                + "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\"}],\"role\":\"model\"},"
                + "\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":3,"
                + "\"candidatesTokenCount\":1,\"totalTokenCount\":4},\"modelVersion\":\"m\",\"responseId\":\"r1\"}\n\n";
    }

    @Override
    protected String errorEvent(String message) {
        return "data: {\"error\":{\"code\":503,\"message\":\"" + message + "\",\"status\":\"UNAVAILABLE\"}}\n\n";
    }

    @Override
    protected String errorObject(String message) {
        return "{\"error\":{\"code\":400,\"message\":\"" + message + "\",\"status\":\"INVALID_ARGUMENT\"}}";
    }

    @Override
    protected MockResponse errorResponse(ErrorCase kind) {
        return switch (kind) {
            case AUTHENTICATION -> error(400, "API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT",
                    "{\"@type\":\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":\"API_KEY_INVALID\","
                            + "\"domain\":\"googleapis.com\",\"metadata\":{\"service\":\"generativelanguage.googleapis.com\"}}");
            case RATE_LIMITED -> error(429, "You exceeded your current quota, please check your plan and billing details.",
                    "RESOURCE_EXHAUSTED", "{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\",\"violations\":[{"
                            + "\"quotaMetric\":\"generativelanguage.googleapis.com/generate_content_free_tier_requests\","
                            + "\"quotaId\":\"GenerateRequestsPerMinutePerProjectPerModel-FreeTier\","
                            + "\"quotaDimensions\":{\"location\":\"global\",\"model\":\"gemini-2.5-flash\"},\"quotaValue\":\"10\"}]}");
            case OVERLOADED -> error(503, "The model is overloaded. Please try again later.", "UNAVAILABLE", null);
            case INVALID_REQUEST -> error(400, "Invalid JSON payload received. Unknown name \\\"foo\\\": Cannot find field.",
                    "INVALID_ARGUMENT", null);
            case CONTEXT_LENGTH_EXCEEDED -> error(400, "The input token count (1200000) exceeds the maximum number of "
                    + "tokens allowed (1048576).", "INVALID_ARGUMENT", null);
            case SERVER -> error(500, "An internal error has occurred. Please retry or report in "
                    + "https://developers.generativeai.google/guide/troubleshooting", "INTERNAL", null);
        };
    }

    static MockResponse error(int code, String message, String status, String detail) {
        return new MockResponse.Builder().code(code).addHeader("Content-Type", "application/json; charset=UTF-8")
                .body("{\"error\":{\"code\":" + code + ",\"message\":\"" + message + "\",\"status\":\"" + status + "\""
                        + (detail == null ? "" : ",\"details\":[" + detail + "]") + "}}")
                .build();
    }
}
