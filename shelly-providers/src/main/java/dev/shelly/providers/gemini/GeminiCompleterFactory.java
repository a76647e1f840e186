package dev.shelly.providers.gemini;

import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.spi.CompleterFactory;
import dev.shelly.modeladapter.spi.ProviderSettings;
import dev.shelly.providers.internal.FactorySupport;
import java.util.List;

/**
 * The {@code gemini} kind: {@link GeminiCompleter} from configuration. Reads the common settings
 * ({@code model}, {@code base_url} or {@code GEMINI_BASE_URL}, {@code api_key} or
 * {@code GEMINI_API_KEY} or {@code GOOGLE_API_KEY}, {@code max_tokens}, {@code temperature},
 * {@code timeout}, {@code headers}).
 *
 * <pre>{@code
 * providers:
 *   - name: gemini
 *     kind: gemini
 *     model: gemini-2.5-flash
 * }</pre>
 */
public final class GeminiCompleterFactory implements CompleterFactory {
    /** Found by {@link java.util.ServiceLoader}. */
    public GeminiCompleterFactory() {}

    @Override
    public String kind() {
        return "gemini";
    }

    @Override
    public Completer create(ProviderSettings settings) {
        return FactorySupport.build(FactorySupport.configure(GeminiCompleter.builder(), settings,
                List.of("GEMINI_API_KEY", "GOOGLE_API_KEY"), "GEMINI_BASE_URL"));
    }
}
