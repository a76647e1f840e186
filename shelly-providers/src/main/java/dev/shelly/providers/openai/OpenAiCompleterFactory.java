package dev.shelly.providers.openai;

import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.spi.CompleterFactory;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import dev.shelly.modeladapter.spi.ProviderSettings;
import dev.shelly.providers.internal.FactorySupport;
import java.util.List;
import java.util.function.Supplier;

/**
 * The {@code openai} kind: {@link OpenAiCompleter} from configuration. Besides the common
 * settings ({@code model}, {@code base_url}, {@code api_key} or {@code OPENAI_API_KEY},
 * {@code max_tokens}, {@code temperature}, {@code timeout}, {@code headers}) it reads
 * {@code api}: {@code chat} (Chat Completions, the default) or {@code responses} (the Responses
 * API). The {@code grok} and {@code openai-compatible} kinds extend it with their own builder
 * and variables.
 *
 * <pre>{@code
 * providers:
 *   - name: gpt
 *     kind: openai
 *     model: gpt-5
 *     api: responses
 * }</pre>
 */
public class OpenAiCompleterFactory implements CompleterFactory {
    private final String kind;
    private final Supplier<OpenAiCompleter.Builder> builder;
    private final List<String> keyVariables;
    private final String baseUrlVariable;

    /** The {@code openai} kind, found by {@link java.util.ServiceLoader}. */
    public OpenAiCompleterFactory() {
        this("openai", OpenAiCompleter::builder, List.of("OPENAI_API_KEY"), "OPENAI_BASE_URL");
    }

    /**
     * A kind that speaks OpenAI's APIs with its own defaults.
     *
     * @param kind the kind, as configuration names it
     * @param builder a fresh builder with the kind's defaults
     * @param keyVariables the environment variables its key may come from; empty when it needs none
     * @param baseUrlVariable the environment variable of its base URL, or null when {@code base_url}
     *     must be configured
     */
    protected OpenAiCompleterFactory(String kind, Supplier<OpenAiCompleter.Builder> builder, List<String> keyVariables,
            String baseUrlVariable) {
        this.kind = kind;
        this.builder = builder;
        this.keyVariables = List.copyOf(keyVariables);
        this.baseUrlVariable = baseUrlVariable;
    }

    @Override
    public String kind() {
        return kind;
    }

    @Override
    public Completer create(ProviderSettings settings) {
        OpenAiCompleter.Builder b = FactorySupport.configure(builder.get(), settings, keyVariables, baseUrlVariable);
        settings.optionalString("api").ifPresent(value -> {
            try {
                b.api(OpenAiCompleter.Api.of(value));
            } catch (IllegalArgumentException e) {
                throw new InvalidSettingException("api", "expected chat or responses, got '" + value + "'");
            }
        });
        return FactorySupport.build(b);
    }
}
