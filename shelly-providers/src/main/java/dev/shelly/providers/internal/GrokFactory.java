package dev.shelly.providers.internal;

import dev.shelly.providers.grok.GrokCompleter;

/**
 * The provider kind {@code grok}: xAI's Grok, the key from {@code api_key} or {@code XAI_API_KEY};
 * reads {@code api} ({@code chat}, the default, or {@code responses}:
 * {@link dev.shelly.providers.openai.OpenAiCompleter.Api}).
 */
public final class GrokFactory extends KindFactory {
    /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
    public GrokFactory() {
        super("grok", settings -> GrokCompleter.builder().name(settings.provider()).api(settings).build(settings));
    }
}
