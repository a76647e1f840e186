package dev.shelly.providers.openai;

import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import dev.shelly.modeladapter.spi.ProviderSettings;
import dev.shelly.provider.spi.Auth;
import dev.shelly.provider.spi.ProviderBuilder;
import dev.shelly.provider.spi.TokenSource;
import dev.shelly.provider.spi.WireFormat;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Completers for Azure OpenAI: OpenAI's Chat Completions or Responses API on an Azure resource,
 * addressed by deployment.
 *
 * <ul>
 *   <li>The base URL is the resource's endpoint ({@code https://<resource>.openai.azure.com}, or
 *       {@code AZURE_OPENAI_ENDPOINT}); the model is the deployment's name.
 *   <li>Without an API version (neither {@link Builder#apiVersion} nor {@code OPENAI_API_VERSION}),
 *       or with {@code v1}, requests go to the v1 API: {@code {endpoint}/openai/v1/chat/completions}
 *       or {@code .../openai/v1/responses}, the deployment as the body's {@code model}.
 *   <li>With a dated version, Chat Completions go to
 *       {@code {endpoint}/openai/deployments/{deployment}/chat/completions?api-version=...} and the
 *       Responses API to {@code {endpoint}/openai/responses?api-version=...}.
 *   <li>The key goes in the {@code api-key} header ({@code AZURE_OPENAI_API_KEY}); with a
 *       {@link TokenSource} (Microsoft Entra ID) a bearer token goes instead, renewed before it
 *       expires, and no key is needed.
 *   <li>A prompt Azure's content filter refuses is a {@code CONTENT_FILTER} failure naming the
 *       flagged categories; a 429's {@code retry-after-ms} is the retry delay.
 * </ul>
 *
 * <pre>{@code
 * Completer azure = AzureOpenAiCompleter.builder()
 *         .baseUrl("https://contoso.openai.azure.com").model("gpt-4o-prod")     // the deployment
 *         .apiVersion("2024-10-21")                                            // or v1 without one
 *         .build();                                                            // key from AZURE_OPENAI_API_KEY
 * }</pre>
 */
public final class AzureOpenAiCompleter {
    /** The environment variable of the key. */
    public static final String API_KEY_VARIABLE = "AZURE_OPENAI_API_KEY";
    /** The environment variable of the resource's endpoint. */
    public static final String ENDPOINT_VARIABLE = "AZURE_OPENAI_ENDPOINT";
    /** The environment variable of the API version, as Azure's own SDKs read it. */
    public static final String API_VERSION_VARIABLE = "OPENAI_API_VERSION";
    /** The API version that selects the v1 paths, as does no version at all. */
    public static final String V1 = "v1";

    /** Azure's rule for deployment names, plus the dots model names carry. */
    private static final Pattern DEPLOYMENT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final Pattern VERSION = Pattern.compile("[A-Za-z0-9][A-Za-z0-9.-]*");

    private AzureOpenAiCompleter() {}

    /**
     * Starts a completer for Azure OpenAI.
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Configures a completer for Azure OpenAI; it builds an {@link OpenAiCompleter} at Azure's paths. */
    public static final class Builder extends ProviderBuilder<Builder> {
        private OpenAiCompleter.Api api = OpenAiCompleter.Api.CHAT_COMPLETIONS;
        private String apiVersion;
        private TokenSource tokenSource;

        private Builder() {
            super("azure-openai", null, API_KEY_VARIABLE, ENDPOINT_VARIABLE);
        }

        /**
         * Chooses the request format: Chat Completions (the default) or the Responses API.
         *
         * @param value the API
         * @return this builder
         */
        public Builder api(OpenAiCompleter.Api value) {
            if (value == null) {
                throw new IllegalArgumentException(providerName() + ": api must not be null");
            }
            this.api = value;
            return this;
        }

        /**
         * Sets the API version: a dated one ({@code 2024-10-21}, {@code 2025-04-01-preview}) for
         * the deployment paths, or {@code v1} for the v1 paths. Unset, {@code OPENAI_API_VERSION}
         * decides, and without it the v1 paths are used.
         *
         * @param value the version
         * @return this builder
         */
        public Builder apiVersion(String value) {
            if (value == null || !VERSION.matcher(value.strip()).matches()) {
                throw new IllegalArgumentException(providerName() + ": apiVersion must be a version such as "
                        + "2024-10-21 or v1, was '" + value + "'");
            }
            this.apiVersion = value.strip();
            return this;
        }

        /**
         * Authenticates with bearer tokens from a source (Microsoft Entra ID) instead of a key:
         * fetched for the first request and renewed two minutes before each expires.
         *
         * @param value the source
         * @return this builder
         */
        public Builder tokenSource(TokenSource value) {
            if (value == null) {
                throw new IllegalArgumentException(providerName() + ": tokenSource must not be null");
            }
            this.tokenSource = value;
            return this;
        }

        /**
         * Reads the kind's own settings, for the {@code azure-openai} kind: {@code api}
         * ({@code chat} or {@code responses}) and {@code api_version}.
         *
         * @param settings the provider's settings
         * @return this builder
         * @throws InvalidSettingException naming the field whose value is wrong
         */
        public Builder settings(ProviderSettings settings) {
            OpenAiCompleter.Api.of(settings).ifPresent(this::api);
            settings.optionalString("api_version").ifPresent(value -> {
                if (!VERSION.matcher(value.strip()).matches()) {
                    throw new InvalidSettingException("api_version", "expected a version such as 2024-10-21 or v1, got '"
                            + value + "'");
                }
                apiVersion(value);
            });
            return this;
        }

        /**
         * The version in force: the one set, else {@code OPENAI_API_VERSION}, else {@code v1}.
         *
         * @return the version
         */
        String resolvedApiVersion() {
            if (apiVersion != null) {
                return apiVersion;
            }
            return environmentValue(API_VERSION_VARIABLE).orElse(V1);
        }

        /** The request path for the deployment and version, relative to the endpoint. */
        private String path(String deployment) {
            String version = resolvedApiVersion();
            if (!VERSION.matcher(version).matches()) {
                throw new IllegalArgumentException(providerName() + ": the environment variable " + API_VERSION_VARIABLE
                        + " must be a version such as 2024-10-21 or v1, was '" + version + "'");
            }
            String endpoint = api == OpenAiCompleter.Api.RESPONSES ? "responses" : "chat/completions";
            if (version.equalsIgnoreCase(V1)) {
                return "openai/v1/" + endpoint;
            }
            if (api == OpenAiCompleter.Api.RESPONSES) {
                return "openai/responses?api-version=" + version;
            }
            return "openai/deployments/" + deployment + "/chat/completions?api-version=" + version;
        }

        /**
         * The wire format these settings give, without any HTTP: to see the exact request body a
         * chat becomes and the path it goes to. Needs no key.
         *
         * @return the format
         * @throws IllegalArgumentException when the model (the deployment) is not set or not a
         *     deployment name
         */
        public WireFormat wireFormat() {
            String deployment = requireModel();
            if (!DEPLOYMENT.matcher(deployment).matches()) {
                throw new IllegalArgumentException(providerName() + ": the deployment name '" + deployment
                        + "' may hold only letters, digits, '.', '_' and '-' (at most 64)");
            }
            WireFormat openAi = api == OpenAiCompleter.Api.RESPONSES
                    ? new ResponsesFormat(providerName(), deployment, defaults(), true)
                    : new ChatCompletionsFormat(providerName(), deployment, "max_completion_tokens", defaults(), 4, true);
            return new AzureFormat(openAi, path(deployment));
        }

        @Override
        protected boolean apiKeyRequired() {
            return tokenSource == null;
        }

        @Override
        public OpenAiCompleter build() {
            WireFormat format = wireFormat();
            Auth auth = tokenSource != null ? Auth.bearer(tokenSource) : Auth.header("api-key", requireApiKey());
            return new OpenAiCompleter(assemble(format, auth, Map.of(), "AzureOpenAiCompleter[name=" + providerName()
                    + ", deployment=" + requireModel() + ", endpoint=" + maskedBaseUrl() + ", path=" + format.path()
                    + (tokenSource != null ? ", auth=token" : "") + "]"));
        }
    }
}
