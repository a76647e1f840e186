package dev.shelly.providers.internal;

import dev.shelly.providers.openai.OpenAiCompleter;

/**
 * The provider kind {@code openai}: OpenAI's Chat Completions API, the key from {@code api_key}
 * or {@code OPENAI_API_KEY}; reads {@code api} ({@code chat}, the default, or {@code responses}:
 * {@link OpenAiCompleter.Api}).
 */
public final class OpenAiFactory extends KindFactory {
    /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
    public OpenAiFactory() {
        super("openai", settings -> OpenAiCompleter.builder().name(settings.provider()).api(settings).build(settings));
    }
}
