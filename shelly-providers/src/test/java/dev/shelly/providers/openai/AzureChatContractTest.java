package dev.shelly.providers.openai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.provider.spi.ProviderBuilder;
import dev.shelly.providers.internal.WireSupport;
import java.util.List;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;

/**
 * The provider contract on Azure OpenAI's Chat Completions at a deployment path with a dated
 * {@code api-version}, the {@code api-key} header and Azure's own error bodies.
 */
class AzureChatContractTest extends OpenAiChatContractTest {
    static final String VERSION = "2024-10-21";

    @Override
    protected String name() {
        return "azure-openai";
    }

    @Override
    protected ProviderBuilder<?> newBuilder() {
        return AzureOpenAiCompleter.builder().apiVersion(VERSION);
    }

    @Override
    protected String basePath() {
        return "/";
    }

    @Override
    protected String expectedPath(boolean stream) {
        return "/openai/deployments/" + model() + "/chat/completions?api-version=" + VERSION;
    }

    @Override
    protected List<String> keyVariables() {
        return List.of("AZURE_OPENAI_API_KEY");
    }

    @Override
    protected String baseUrlVariable() {
        return "AZURE_OPENAI_ENDPOINT";
    }

    @Override
    protected void assertKeySent(RecordedRequest request, String key) {
        assertThat(request.getHeaders().get("api-key")).isEqualTo(key);
        assertThat(request.getHeaders().get("Authorization")).isNull();
    }

    /** Azure's error bodies: its own codes and messages for what OpenAI words otherwise. */
    @Override
    protected MockResponse errorResponse(ErrorCase kind) {
        return switch (kind) {
            case AUTHENTICATION -> azureError(401, "401", "Access denied due to invalid subscription key or wrong API "
                    + "endpoint. Make sure to provide a valid key for an active subscription and use a correct regional "
                    + "API endpoint for your resource.");
            case RATE_LIMITED -> azureError(429, "429", "Requests to the ChatCompletions_Create Operation under Azure "
                    + "OpenAI API version " + VERSION + " have exceeded token rate limit of your current OpenAI S0 "
                    + "pricing tier. Please retry after 2 seconds.");
            case OVERLOADED -> azureError(503, "server_overloaded", "The server is currently overloaded, please try again "
                    + "later.");
            case INVALID_REQUEST -> azureError(400, "BadRequest", "Invalid value for 'temperature': must be at most 2.");
            case CONTEXT_LENGTH_EXCEEDED -> azureError(400, "context_length_exceeded", "This model's maximum context "
                    + "length is 128000 tokens. However, your messages resulted in 130012 tokens. Please reduce the "
                    + "length of the messages.");
            case SERVER -> azureError(500, "InternalServerError", "The server had an error while processing your "
                    + "request. Sorry about that!");
        };
    }

    static MockResponse azureError(int status, String code, String message) {
        return new MockResponse.Builder().code(status).addHeader("Content-Type", "application/json")
                .addHeader("apim-request-id", "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d")
                .body("{\"error\":{\"code\":\"" + code + "\",\"message\":" + WireSupport.JSON.writeValueAsString(message)
                        + "}}")
                .build();
    }
}
