package dev.shelly.providers.grok;

import dev.shelly.providers.openai.OpenAiCompleterFactory;
import java.util.List;

/**
 * The {@code grok} kind: xAI's Grok from configuration, key from {@code api_key} or
 * {@code XAI_API_KEY}, base URL from {@code base_url} or {@code XAI_BASE_URL}; the settings are
 * those of the {@code openai} kind, {@code api} included.
 */
public final class GrokCompleterFactory extends OpenAiCompleterFactory {
    /** Found by {@link java.util.ServiceLoader}. */
    public GrokCompleterFactory() {
        super("grok", GrokCompleter::builder, List.of("XAI_API_KEY"), "XAI_BASE_URL");
    }
}
