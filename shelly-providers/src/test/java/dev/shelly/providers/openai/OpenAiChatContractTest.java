package dev.shelly.providers.openai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Message;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.provider.spi.ProviderBuilder;
import dev.shelly.providers.Fixtures;
import dev.shelly.providers.ProviderContract;
import dev.shelly.providers.internal.WireSupport;
import java.util.List;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;

/** The provider contract on OpenAI's Chat Completions; Grok's contract test reuses its fixtures. */
public class OpenAiChatContractTest extends ProviderContract {
    @Override
    protected String name() {
        return "openai";
    }

    @Override
    protected ProviderBuilder<?> newBuilder() {
        return OpenAiCompleter.builder();
    }

    @Override
    protected String model() {
        return "gpt-test";
    }

    @Override
    protected String basePath() {
        return "/v1";
    }

    @Override
    protected String expectedPath(boolean stream) {
        return "/v1/chat/completions";
    }

    @Override
    protected List<String> keyVariables() {
        return List.of("OPENAI_API_KEY");
    }

    @Override
    protected String baseUrlVariable() {
        return "OPENAI_BASE_URL";
    }

    @Override
    protected void assertKeySent(RecordedRequest request, String key) {
        assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer " + key);
    }

    @Override
    protected String conversationRequest() {
        return """
                {"model":"%s","messages":[
                  {"role":"system","content":"You are terse."},
                  {"role":"user","content":[
                    {"type":"text","text":"What is in this picture?"},
                    {"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}}]},
                  {"role":"assistant","content":"Let me check.","tool_calls":[
                    {"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}},
                    {"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{\\"city\\":\\"Paris\\"}"}}]},
                  {"role":"tool","tool_call_id":"call_1","content":"14°C and sunny"},
                  {"role":"tool","tool_call_id":"call_2","content":"time service unavailable"},
                  {"role":"user","content":[
                    {"type":"text","text":"And this one?"},
                    {"type":"image_url","image_url":{"url":"https://example.com/cat.jpg"}}]}],
                 "tools":[
                  {"type":"function","function":{"name":"get_weather","description":"Get the current weather",
                    "parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}},
                  {"type":"function","function":{"name":"get_time","description":"Get the local time",
                    "parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}],
                 "max_completion_tokens":1024,"temperature":0.5}
                """.formatted(model(), Fixtures.PNG_BASE64);
    }

    @Override
    protected String streamFields() {
        return "{\"stream\":true,\"stream_options\":{\"include_usage\":true}}";
    }

    @Override
    protected String reply() {
        return OpenAiCompleterTest.REPLY;
    }

    @Override
    protected String streamedReply() {
        return OpenAiCompleterTest.STREAM;
    }

    @Override
    protected ModelResponse expectedReply() {
        ModelResponse r = OpenAiCompleterTest.EXPECTED_REPLY;
        return new ModelResponse(new Message(name(), r.message().role(), r.message().parts()), r.usage(), r.stopReason(),
                r.providerStopReason(), r.model(), r.responseId(), name());
    }

    @Override
    protected String streamOf(String text) {
        return "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,"
                + "\"delta\":{\"role\":\"assistant\",\"content\":\"" + text + "\"}}]}\n\n"
                + "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,"
                + "\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
                + "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[],"
                + "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1,\"total_tokens\":4}}\n\n"
                + "data: [DONE]\n\n";
    }

    @Override
    protected String errorEvent(String message) {
        return "data: {\"error\":{\"message\":\"" + message + "\",\"type\":\"server_error\",\"code\":null}}\n\n";
    }

    @Override
    protected String errorObject(String message) {
        return "{\"error\":{\"message\":\"" + message + "\",\"type\":\"server_error\",\"code\":null}}";
    }

    @Override
    protected MockResponse errorResponse(ErrorCase kind) {
        return switch (kind) {
            case AUTHENTICATION -> error(401, "invalid_request_error", "invalid_api_key",
                    "Incorrect API key provided: sk-WRQsP***xQBt. You can find your API key at https://platform.openai.com/account/api-keys.");
            case RATE_LIMITED -> error(429, "tokens", "rate_limit_exceeded", "Rate limit reached for gpt-test in "
                    + "organization org-x on tokens per min (TPM): Limit 200000, Used 162960, Requested 42288. Please try again in 1.574s.");
            case OVERLOADED -> error(503, "server_error", null, "The engine is currently overloaded, please try again later");
            case INVALID_REQUEST -> error(400, "invalid_request_error", "unsupported_parameter", "Unsupported parameter: "
                    + "'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.");
            case CONTEXT_LENGTH_EXCEEDED -> error(400, "invalid_request_error", "context_length_exceeded", "This model's "
                    + "maximum context length is 4097 tokens. However, your messages resulted in 4294 tokens. Please reduce the length of the messages.");
            case SERVER -> error(500, "server_error", null,
                    "The server had an error while processing your request. Sorry about that!");
        };
    }

    private static MockResponse error(int status, String type, String code, String message) {
        return new MockResponse.Builder().code(status).addHeader("Content-Type", "application/json")
                .addHeader("x-request-id", "req_abc")
                .body("{\"error\":{\"message\":" + WireSupport.JSON.writeValueAsString(message) + ",\"type\":\"" + type
                        + "\",\"param\":null,\"code\":" + (code == null ? "null" : "\"" + code + "\"") + "}}")
                .build();
    }
}
