package dev.shelly.providers.internal;

import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import dev.shelly.modeladapter.spi.ProviderSettings;
import dev.shelly.provider.spi.ProviderBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The settings every provider kind reads, for the {@link dev.shelly.modeladapter.spi.CompleterFactory}
 * implementations of this module: {@code model}, {@code base_url}, {@code api_key},
 * {@code max_tokens}, {@code temperature}, {@code timeout} and {@code headers}, each checked and
 * reported by its field. Retries are the engine's, so the builder's own are turned off.
 * Internal: not part of Shelly's API.
 */
public final class FactorySupport {
    private FactorySupport() {}

    /**
     * Applies the common settings to a provider's builder.
     *
     * @param <B> the builder's type
     * @param builder the provider's builder
     * @param settings the configured settings
     * @param keyVariables the environment variables the key may come from; empty when the kind
     *     needs no key
     * @param baseUrlVariable the environment variable of the base URL, or null when a base URL
     *     must be configured
     * @return the builder
     * @throws InvalidSettingException naming the field that is missing or wrong
     */
    public static <B extends ProviderBuilder<B>> B configure(B builder, ProviderSettings settings,
            List<String> keyVariables, String baseUrlVariable) {
        builder.name(settings.provider()).environment(settings.environment()).retry(RetryPolicy.none());
        builder.model(settings.string("model"));
        Optional<String> baseUrl = settings.optionalUrl("base_url");
        if (baseUrl.isPresent()) {
            builder.baseUrl(baseUrl.get());
        } else if (baseUrlVariable == null) {
            throw new InvalidSettingException("base_url", "must be set: the server's base URL, such as "
                    + "http://localhost:11434/v1");
        }
        Optional<String> key = settings.optionalSecret("api_key");
        if (key.isPresent()) {
            builder.apiKey(key.get());
        } else if (!keyVariables.isEmpty() && keyVariables.stream().allMatch(v -> settings.environment(v).isEmpty())) {
            throw new InvalidSettingException("api_key", "no API key: set api_key or the environment variable "
                    + String.join(" or ", keyVariables));
        }
        settings.optionalInteger("max_tokens", 1).ifPresent(builder::maxTokens);
        settings.optionalNumber("temperature", 0, 2).ifPresent(builder::temperature);
        settings.optionalDuration("timeout").ifPresent(builder::callTimeout);
        for (Map.Entry<String, String> h : settings.stringMap("headers").entrySet()) {
            try {
                builder.header(h.getKey(), h.getValue());
            } catch (IllegalArgumentException e) {
                throw new InvalidSettingException("headers." + h.getKey(), e.getMessage());
            }
        }
        return builder;
    }

    /**
     * Builds the completer, reporting a setting the builder refuses as the section's problem.
     *
     * @param builder the configured builder
     * @return the completer
     * @throws InvalidSettingException with the builder's message
     */
    public static Completer build(ProviderBuilder<?> builder) {
        try {
            return builder.build();
        } catch (InvalidSettingException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new InvalidSettingException("", e.getMessage());
        }
    }
}
