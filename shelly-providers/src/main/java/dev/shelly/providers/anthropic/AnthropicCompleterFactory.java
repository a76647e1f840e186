package dev.shelly.providers.anthropic;

import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.spi.CompleterFactory;
import dev.shelly.modeladapter.spi.ProviderSettings;
import dev.shelly.providers.internal.FactorySupport;
import java.util.List;

/**
 * The {@code anthropic} kind: {@link AnthropicCompleter} from configuration. Reads the common
 * settings ({@code model}, {@code base_url}, {@code api_key} or {@code ANTHROPIC_API_KEY},
 * {@code max_tokens}, {@code temperature}, {@code timeout}, {@code headers}).
 */
public final class AnthropicCompleterFactory implements CompleterFactory {
    /** Found by {@link java.util.ServiceLoader}. */
    public AnthropicCompleterFactory() {}

    @Override
    public String kind() {
        return "anthropic";
    }

    @Override
    public Completer create(ProviderSettings settings) {
        return FactorySupport.build(FactorySupport.configure(AnthropicCompleter.builder(), settings,
                List.of("ANTHROPIC_API_KEY"), "ANTHROPIC_BASE_URL"));
    }
}
