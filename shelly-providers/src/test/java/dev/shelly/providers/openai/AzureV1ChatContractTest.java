package dev.shelly.providers.openai;

import dev.shelly.provider.spi.ProviderBuilder;

/** The provider contract on Azure OpenAI's v1 API: no version, the deployment as the model. */
class AzureV1ChatContractTest extends AzureChatContractTest {
    @Override
    protected ProviderBuilder<?> newBuilder() {
        return AzureOpenAiCompleter.builder();
    }

    @Override
    protected String expectedPath(boolean stream) {
        return "/openai/v1/chat/completions";
    }
}
