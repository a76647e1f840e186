package dev.shelly.providers.grok;

import dev.shelly.provider.spi.ProviderBuilder;
import dev.shelly.providers.openai.OpenAiChatContractTest;
import java.util.List;

/** The provider contract on xAI's Grok: Chat Completions with its own name, key and base URL variables. */
class GrokContractTest extends OpenAiChatContractTest {
    @Override
    protected String name() {
        return "grok";
    }

    @Override
    protected ProviderBuilder<?> newBuilder() {
        return GrokCompleter.builder();
    }

    @Override
    protected List<String> keyVariables() {
        return List.of("XAI_API_KEY");
    }

    @Override
    protected String baseUrlVariable() {
        return "XAI_BASE_URL";
    }
}
