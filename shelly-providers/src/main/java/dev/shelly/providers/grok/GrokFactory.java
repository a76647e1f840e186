package dev.shelly.providers.grok;

import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.spi.CompleterFactory;
import dev.shelly.modeladapter.spi.ProviderSettings;

/**
 * The provider kind {@code grok}: xAI's Grok, the key from {@code api_key} or {@code XAI_API_KEY}. Found by {@link java.util.ServiceLoader}; reads the
 * settings every HTTP provider shares (see
 * {@link dev.shelly.provider.spi.ProviderBuilder#build(ProviderSettings)}).
 */
public final class GrokFactory implements CompleterFactory {
    /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
    public GrokFactory() {}

    @Override
    public String kind() {
        return "grok";
    }

    @Override
    public Completer create(ProviderSettings settings) {
        return GrokCompleter.builder().name(settings.provider()).build(settings);
    }
}
