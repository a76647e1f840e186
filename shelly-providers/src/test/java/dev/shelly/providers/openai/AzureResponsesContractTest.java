package dev.shelly.providers.openai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Thinking;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.provider.spi.ProviderBuilder;
import java.util.List;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;

/** The provider contract on Azure OpenAI's Responses API, at its dated path. */
class AzureResponsesContractTest extends ResponsesContractTest {
    static final String VERSION = "2025-04-01-preview";

    @Override
    protected String name() {
        return "azure-openai";
    }

    @Override
    protected ProviderBuilder<?> newBuilder() {
        return AzureOpenAiCompleter.builder().api(OpenAiCompleter.Api.RESPONSES).apiVersion(VERSION);
    }

    @Override
    protected String basePath() {
        return "/";
    }

    @Override
    protected String expectedPath(boolean stream) {
        return "/openai/responses?api-version=" + VERSION;
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
    }

    @Override
    protected ModelResponse expectedReply() {
        ModelResponse r = super.expectedReply();
        // Encrypted reasoning is this resource's own: its origin names this provider.
        List<Part> parts = r.message().parts().stream()
                .map(p -> p instanceof Thinking t ? (Part) t.withOrigin("openai-responses:" + name()) : p).toList();
        return new ModelResponse(new Message(name(), r.message().role(), parts), r.usage(), r.stopReason(),
                r.providerStopReason(), r.model(), r.responseId(), name());
    }

    @Override
    protected MockResponse errorResponse(ErrorCase kind) {
        return new AzureChatContractTest().errorResponse(kind);
    }
}
