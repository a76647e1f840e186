package dev.shelly.providers.openai;

import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.spi.CompleterFactory;
import dev.shelly.modeladapter.spi.ProviderSettings;

/**
 * The provider kind {@code openai-compatible}: any server speaking OpenAI's Chat Completions (Ollama, vLLM, llama.cpp, LM Studio); {@code base_url} is required, {@code api_key} optional, nothing is read from the environment. Found by {@link java.util.ServiceLoader}; reads the
 * settings every HTTP provider shares (see
 * {@link dev.shelly.provider.spi.ProviderBuilder#build(ProviderSettings)}).
 */
public final class OpenAiCompatibleFactory implements CompleterFactory {
    /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
    public OpenAiCompatibleFactory() {}

    @Override
    public String kind() {
        return "openai-compatible";
    }

    @Override
    public Completer create(ProviderSettings settings) {
        return OpenAiCompleter.compatible().name(settings.provider()).build(settings);
    }
}
