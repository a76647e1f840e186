package dev.shelly.providers.anthropic;

import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.spi.CompleterFactory;
import dev.shelly.modeladapter.spi.ProviderSettings;

/**
 * The provider kind {@code anthropic}: Anthropic's Messages API, the key from {@code api_key} or {@code ANTHROPIC_API_KEY}. Found by {@link java.util.ServiceLoader}; reads the
 * settings every HTTP provider shares (see
 * {@link dev.shelly.provider.spi.ProviderBuilder#build(ProviderSettings)}).
 */
public final class AnthropicFactory implements CompleterFactory {
    /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
    public AnthropicFactory() {}

    @Override
    public String kind() {
        return "anthropic";
    }

    @Override
    public Completer create(ProviderSettings settings) {
        return AnthropicCompleter.builder().name(settings.provider()).build(settings);
    }
}
