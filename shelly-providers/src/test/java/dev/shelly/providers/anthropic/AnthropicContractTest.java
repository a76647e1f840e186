package dev.shelly.providers.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.provider.spi.ProviderBuilder;
import dev.shelly.providers.Fixtures;
import dev.shelly.providers.ProviderContract;
import java.util.List;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;

/** The provider contract on Anthropic's Messages API. */
class AnthropicContractTest extends ProviderContract {
    @Override
    protected String name() {
        return "anthropic";
    }

    @Override
    protected ProviderBuilder<?> newBuilder() {
        return AnthropicCompleter.builder();
    }

    @Override
    protected String model() {
        return "claude-test";
    }

    @Override
    protected String basePath() {
        return "/";
    }

    @Override
    protected String expectedPath(boolean stream) {
        return "/v1/messages";
    }

    @Override
    protected List<String> keyVariables() {
        return List.of("ANTHROPIC_API_KEY");
    }

    @Override
    protected String baseUrlVariable() {
        return "ANTHROPIC_BASE_URL";
    }

    @Override
    protected void assertKeySent(RecordedRequest request, String key) {
        assertThat(request.getHeaders().get("x-api-key")).isEqualTo(key);
        assertThat(request.getHeaders().get("anthropic-version")).isEqualTo("2023-06-01");
        assertThat(request.getHeaders().get("Authorization")).isNull();
    }

    @Override
    protected String conversationRequest() {
        return """
                {"model":"claude-test","max_tokens":1024,"temperature":0.5,"system":"You are terse.",
                 "messages":[
                  {"role":"user","content":[
                    {"type":"text","text":"What is in this picture?"},
                    {"type":"image","source":{"type":"base64","media_type":"image/png","data":"%s"}}]},
                  {"role":"assistant","content":[
                    {"type":"thinking","thinking":"The user wants weather and time.","signature":"sig-123"},
                    {"type":"text","text":"Let me check."},
                    {"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Paris"}},
                    {"type":"tool_use","id":"call_2","name":"get_time","input":{"city":"Paris"}}]},
                  {"role":"user","content":[
                    {"type":"tool_result","tool_use_id":"call_1","content":"14°C and sunny"},
                    {"type":"tool_result","tool_use_id":"call_2","content":"time service unavailable","is_error":true},
                    {"type":"text","text":"And this one?"},
                    {"type":"image","source":{"type":"url","url":"https://example.com/cat.jpg"}}]}],
                 "tools":[
                  {"name":"get_weather","description":"Get the current weather",
                   "input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},
                  {"name":"get_time","description":"Get the local time",
                   "input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}]}
                """.formatted(Fixtures.PNG_BASE64);
    }

    @Override
    protected String streamFields() {
        return "{\"stream\":true}";
    }

    @Override
    protected String reply() {
        return AnthropicCompleterTest.REPLY;
    }

    @Override
    protected String streamedReply() {
        return AnthropicCompleterTest.STREAM;
    }

    @Override
    protected ModelResponse expectedReply() {
        return AnthropicCompleterTest.EXPECTED_REPLY;
    }

    @Override
    protected String streamOf(String text) {
        return "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\",\"model\":\"m\","
                + "\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n"
                + "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
                + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
                + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
                + "\"delta\":{\"type\":\"text_delta\",\"text\":\"" + text + "\"}}\n\n"
                + "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
                + "\"usage\":{\"output_tokens\":2}}\n\n"
                + "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    }

    @Override
    protected String errorEvent(String message) {
        return "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\""
                + message + "\"}}\n\n";
    }

    @Override
    protected String errorObject(String message) {
        return "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"" + message + "\"}}";
    }

    @Override
    protected MockResponse errorResponse(ErrorCase kind) {
        return switch (kind) {
            case AUTHENTICATION -> error(401, "authentication_error", "invalid x-api-key");
            case RATE_LIMITED -> error(429, "rate_limit_error", "This request would exceed the rate limit for your "
                    + "organization of 20,000 input tokens per minute.");
            case OVERLOADED -> error(529, "overloaded_error", "Overloaded");
            case INVALID_REQUEST -> error(400, "invalid_request_error", "messages: text content blocks must be non-empty");
            case CONTEXT_LENGTH_EXCEEDED -> error(400, "invalid_request_error", "prompt is too long: 208310 tokens > "
                    + "200000 maximum");
            case SERVER -> error(500, "api_error", "Internal server error");
        };
    }

    private static MockResponse error(int status, String type, String message) {
        return new MockResponse.Builder().code(status).addHeader("Content-Type", "application/json")
                .addHeader("request-id", "req_011CSHoEeqs5C35K2UUqR7Fy")
                .body("{\"type\":\"error\",\"error\":{\"type\":\"" + type + "\",\"message\":\"" + message
                        + "\"},\"request_id\":\"req_011CSHoEeqs5C35K2UUqR7Fy\"}")
                .build();
    }
}
