package dev.shelly.providers;

import dev.shelly.provider.spi.ProviderBuilder;
import dev.shelly.providers.anthropic.AnthropicCompleter;
import dev.shelly.providers.grok.GrokCompleter;
import dev.shelly.providers.openai.OpenAiCompleter;
import java.util.List;
import java.util.Locale;

/**
 * Picks a provider by its kind, as configuration names it.
 *
 * <pre>{@code
 * Completer model = Providers.builder("anthropic").model("claude-sonnet-4-5").maxTokens(2048).build();
 * }</pre>
 */
public final class Providers {
    /** The kinds {@link #builder(String)} knows. */
    public static final List<String> KINDS = List.of("anthropic", "openai", "grok", "openai-compatible");

    private Providers() {}

    /**
     * A builder for a kind of provider.
     *
     * @param kind {@code anthropic}, {@code openai}, {@code grok} or {@code openai-compatible}
     *     (case ignored)
     * @return the provider's builder, ready for the common settings
     * @throws IllegalArgumentException for an unknown kind, listing the known ones
     */
    public static ProviderBuilder<?> builder(String kind) {
        String key = kind == null ? "" : kind.strip().toLowerCase(Locale.ROOT);
        return switch (key) {
            case "anthropic" -> AnthropicCompleter.builder();
            case "openai" -> OpenAiCompleter.builder();
            case "grok", "xai" -> GrokCompleter.builder();
            case "openai-compatible" -> OpenAiCompleter.compatible();
            default -> throw new IllegalArgumentException("unknown provider kind '" + kind + "'; expected one of "
                    + String.join(", ", KINDS));
        };
    }
}
