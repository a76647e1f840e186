package dev.shelly.providers.gemini;

import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.spi.CompleterFactory;
import dev.shelly.modeladapter.spi.ProviderSettings;

/**
 * The provider kind {@code gemini}: Google's Gemini API, the key from {@code api_key},
 * {@code GEMINI_API_KEY} or {@code GOOGLE_API_KEY}, the base URL from {@code base_url} or
 * {@code GEMINI_BASE_URL}. Found by {@link java.util.ServiceLoader}; reads the settings every HTTP
 * provider shares (see {@link dev.shelly.provider.spi.ProviderBuilder#build(ProviderSettings)}).
 *
 * <pre>{@code
 * providers:
 *   - name: gemini
 *     kind: gemini
 *     model: gemini-2.5-flash
 * }</pre>
 */
public final class GeminiFactory implements CompleterFactory {
    /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
    public GeminiFactory() {}

    @Override
    public String kind() {
        return "gemini";
    }

    @Override
    public Completer create(ProviderSettings settings) {
        return GeminiCompleter.builder().name(settings.provider()).build(settings);
    }
}
