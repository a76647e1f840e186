package dev.shelly.providers.internal;

import dev.shelly.providers.anthropic.AnthropicCompleter;

/** The provider kind {@code anthropic}: Anthropic's Messages API, the key from {@code api_key} or {@code ANTHROPIC_API_KEY}. */
public final class AnthropicFactory extends KindFactory {
    /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
    public AnthropicFactory() {
        super("anthropic", settings -> AnthropicCompleter.builder().name(settings.provider()).build(settings));
    }
}
