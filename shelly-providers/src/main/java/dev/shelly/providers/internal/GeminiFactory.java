package dev.shelly.providers.internal;

import dev.shelly.providers.gemini.GeminiCompleter;

/**
 * The provider kind {@code gemini}: Google's Gemini API, the key from {@code api_key},
 * {@code GEMINI_API_KEY} or {@code GOOGLE_API_KEY}, the base URL from {@code base_url} or
 * {@code GEMINI_BASE_URL}.
 *
 * <pre>{@code
 * providers:
 *   - name: gemini
 *     kind: gemini
 *     model: gemini-2.5-flash
 * }</pre>
 */
public final class GeminiFactory extends KindFactory {
    /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
    public GeminiFactory() {
        super("gemini", settings -> GeminiCompleter.builder().name(settings.provider()).build(settings));
    }
}
