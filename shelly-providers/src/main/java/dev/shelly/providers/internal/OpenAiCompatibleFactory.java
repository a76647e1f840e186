package dev.shelly.providers.internal;

import dev.shelly.providers.openai.OpenAiCompleter;

/**
 * The provider kind {@code openai-compatible}: any server speaking OpenAI's Chat Completions
 * (Ollama, vLLM, llama.cpp, LM Studio); {@code base_url} is required, {@code api_key} optional,
 * nothing is read from the environment; reads {@code api} ({@code chat}, the default, or
 * {@code responses}: {@link OpenAiCompleter.Api}).
 */
public final class OpenAiCompatibleFactory extends KindFactory {
    /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
    public OpenAiCompatibleFactory() {
        super("openai-compatible",
                settings -> OpenAiCompleter.compatible().name(settings.provider()).api(settings).build(settings));
    }
}
