package dev.shelly.providers.openai;

import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.spi.CompleterFactory;
import dev.shelly.modeladapter.spi.ProviderSettings;

/**
 * The provider kind {@code openai}: OpenAI's Chat Completions API, the key from {@code api_key} or {@code OPENAI_API_KEY}. Found by {@link java.util.ServiceLoader}; reads the
 * settings every HTTP provider shares (see
 * {@link dev.shelly.provider.spi.ProviderBuilder#build(ProviderSettings)}).
 */
public final class OpenAiFactory implements CompleterFactory {
    /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
    public OpenAiFactory() {}

    @Override
    public String kind() {
        return "openai";
    }

    @Override
    public Completer create(ProviderSettings settings) {
        return OpenAiCompleter.builder().name(settings.provider()).build(settings);
    }
}
