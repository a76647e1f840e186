package dev.shelly.providers.internal;

import dev.shelly.providers.openai.AzureOpenAiCompleter;

/**
 * The provider kind {@code azure-openai}: OpenAI's APIs on an Azure resource. {@code base_url} is
 * the endpoint (or {@code AZURE_OPENAI_ENDPOINT}), {@code model} the deployment, the key from
 * {@code api_key} or {@code AZURE_OPENAI_API_KEY}; reads {@code api} ({@code chat} or
 * {@code responses}) and {@code api_version} (or {@code OPENAI_API_VERSION}; none or {@code v1}
 * for the v1 paths). See {@link AzureOpenAiCompleter}.
 */
public final class AzureOpenAiFactory extends KindFactory {
    /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
    public AzureOpenAiFactory() {
        super("azure-openai", settings -> AzureOpenAiCompleter.builder().name(settings.provider()).settings(settings)
                .build(settings));
    }
}
