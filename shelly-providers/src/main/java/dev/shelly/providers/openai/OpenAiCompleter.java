package dev.shelly.providers.openai;

import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelOptions.Reasoning;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import dev.shelly.modeladapter.spi.ProviderSettings;
import dev.shelly.provider.spi.Auth;
import dev.shelly.provider.spi.HttpCompleter;
import dev.shelly.provider.spi.ProviderBuilder;
import dev.shelly.provider.spi.WireFormat;
import java.util.Map;
import java.util.Optional;

/**
 * A completer for OpenAI's Chat Completions API ({@code POST <base>/chat/completions}), and for
 * every server that speaks it: xAI's Grok (see {@link dev.shelly.providers.grok.GrokCompleter}),
 * Ollama, vLLM, llama.cpp, LM Studio.
 *
 * <p>System messages are sent as {@code system} messages; an assistant message that only calls
 * tools has {@code "content": null}; each tool result is its own {@code tool} message (images
 * in tool results follow in a user message, since tool messages carry text only). Reasoning
 * that a server returns ({@code reasoning_content} or {@code reasoning}) becomes a
 * {@link dev.shelly.chats.Thinking} part; it is not sent back. Streams ask for
 * {@code stream_options.include_usage}, so usage is known for streamed replies too.
 *
 * <pre>{@code
 * Completer gpt = OpenAiCompleter.builder().model("gpt-4o").build();               // key from OPENAI_API_KEY
 * Completer local = OpenAiCompleter.compatible().name("ollama")
 *         .baseUrl("http://localhost:11434/v1").model("llama3.2").build();        // no key needed
 * }</pre>
 */
public final class OpenAiCompleter extends HttpCompleter {
    /** The default base URL of OpenAI. */
    public static final String DEFAULT_BASE_URL = "https://api.openai.com/v1";

    /**
     * The facts that tell one Chat Completions service from another.
     *
     * @param name the provider's name in errors and metadata
     * @param defaultBaseUrl the base URL when none is given, or null when one must be given
     * @param apiKeyVariable the environment variable of the key, or null
     * @param baseUrlVariable the environment variable of the base URL, or null
     * @param apiKeyRequired whether building fails without a key
     * @param maxTokensField the request field for max tokens: {@code max_completion_tokens}
     *     (OpenAI, xAI) or {@code max_tokens} (local servers)
     * @param maxStop the most stop sequences a request may carry, 0 for no check
     * @param checkRanges whether to refuse a temperature above 2 before any HTTP
     */
    public record Profile(String name, String defaultBaseUrl, String apiKeyVariable, String baseUrlVariable,
            boolean apiKeyRequired, String maxTokensField, int maxStop, boolean checkRanges) {
        /**
         * A profile without the range checks: no stop-sequence limit, no temperature check.
         *
         * @param name the provider's name
         * @param defaultBaseUrl the base URL when none is given, or null
         * @param apiKeyVariable the environment variable of the key, or null
         * @param baseUrlVariable the environment variable of the base URL, or null
         * @param apiKeyRequired whether building fails without a key
         * @param maxTokensField the request field for max tokens
         */
        public Profile(String name, String defaultBaseUrl, String apiKeyVariable, String baseUrlVariable,
                boolean apiKeyRequired, String maxTokensField) {
            this(name, defaultBaseUrl, apiKeyVariable, baseUrlVariable, apiKeyRequired, maxTokensField, 0, false);
        }

        /** Validates the names and the limit. */
        public Profile {
            if (name == null || name.isBlank() || maxTokensField == null || maxTokensField.isBlank()) {
                throw new IllegalArgumentException("OpenAiCompleter.Profile name and maxTokensField must not be blank");
            }
            if (maxStop < 0) {
                throw new IllegalArgumentException("OpenAiCompleter.Profile maxStop must be 0 (no check) or more, was "
                        + maxStop);
            }
        }
    }

    /** OpenAI itself: {@code OPENAI_API_KEY}, {@code OPENAI_BASE_URL}. */
    public static final Profile OPENAI = new Profile("openai", DEFAULT_BASE_URL, "OPENAI_API_KEY", "OPENAI_BASE_URL",
            true, "max_completion_tokens", 4, true);

    /**
     * Any OpenAI-compatible server: a base URL is required, a key optional, nothing is read from
     * the environment (so an OpenAI key never goes to another server by accident).
     */
    public static final Profile COMPATIBLE = new Profile("openai-compatible", null, null, null, false, "max_tokens", 0,
            false);

    /** Which of OpenAI's two request formats a completer speaks. */
    public enum Api {
        /** Chat Completions ({@code POST <base>/chat/completions}): the default. */
        CHAT_COMPLETIONS("chat"),
        /**
         * The Responses API ({@code POST <base>/responses}), used statelessly ({@code store: false},
         * encrypted reasoning carried between turns).
         */
        RESPONSES("responses");

        private final String configName;

        Api(String configName) {
            this.configName = configName;
        }

        /**
         * The name configuration uses ({@code api: chat} or {@code api: responses}).
         *
         * @return the name
         */
        public String configName() {
            return configName;
        }

        /**
         * The API a configuration name stands for.
         *
         * @param name {@code chat} (or {@code chat-completions}) or {@code responses}, case ignored
         * @return the API
         * @throws IllegalArgumentException naming the value and the ones known
         */
        public static Api of(String name) {
            String key = name == null ? "" : name.strip().toLowerCase(java.util.Locale.ROOT);
            return switch (key) {
                case "chat", "chat-completions", "chat_completions" -> CHAT_COMPLETIONS;
                case "responses" -> RESPONSES;
                default -> throw new IllegalArgumentException("unknown OpenAI api '" + name
                        + "'; expected chat or responses");
            };
        }

        /** The API a provider's {@code api} setting names, if it has one; a wrong value names the field. */
        static Optional<Api> of(ProviderSettings settings) {
            return settings.optionalString("api").map(value -> {
                try {
                    return of(value);
                } catch (IllegalArgumentException e) {
                    throw new InvalidSettingException("api", "expected chat or responses, got '" + value + "'");
                }
            });
        }
    }

    OpenAiCompleter(HttpCompleter assembled) {
        super(assembled);
    }

    /**
     * Starts a completer for OpenAI.
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder(OPENAI);
    }

    /**
     * Starts a completer for an OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio):
     * set its base URL, and its key if it needs one.
     *
     * @return a builder
     */
    public static Builder compatible() {
        return new Builder(COMPATIBLE);
    }

    /**
     * Starts a completer for any Chat Completions service described by a profile.
     *
     * @param profile the service's name, defaults and environment variables
     * @return a builder
     */
    public static Builder builder(Profile profile) {
        if (profile == null) {
            throw new IllegalArgumentException("OpenAiCompleter profile must not be null");
        }
        return new Builder(profile);
    }

    /**
     * A completer for an OpenAI model with the key and base URL from the environment.
     *
     * @param model the model, such as {@code gpt-4o}
     * @return the completer
     * @throws IllegalArgumentException when {@code OPENAI_API_KEY} is not set
     */
    public static OpenAiCompleter fromEnvironment(String model) {
        return builder().model(model).build();
    }

    /** Configures an {@link OpenAiCompleter}. */
    public static final class Builder extends ProviderBuilder<Builder> {
        private final Profile profile;
        private String maxTokensField;

        private Api api = Api.CHAT_COMPLETIONS;

        private Builder(Profile profile) {
            super(profile.name(), profile.defaultBaseUrl(), profile.apiKeyVariable(), profile.baseUrlVariable());
            this.profile = profile;
            this.maxTokensField = profile.maxTokensField();
        }

        /**
         * Sets the request field that carries max tokens, for servers that want the other one.
         *
         * @param field {@code max_completion_tokens} or {@code max_tokens}
         * @return this builder
         */
        public Builder maxTokensField(String field) {
            if (field == null || field.isBlank()) {
                throw new IllegalArgumentException(providerName() + ": maxTokensField must not be blank");
            }
            this.maxTokensField = field.strip();
            return this;
        }

        /**
         * Chooses the request format: Chat Completions (the default) or the Responses API.
         *
         * @param value the API
         * @return this builder
         */
        public Builder api(Api value) {
            if (value == null) {
                throw new IllegalArgumentException(providerName() + ": api must not be null");
            }
            this.api = value;
            return this;
        }

        /**
         * Chooses the request format from a provider's {@code api} setting ({@code chat} or
         * {@code responses}), when it has one; configuration's {@code openai}, {@code grok} and
         * {@code openai-compatible} kinds read it this way.
         *
         * @param settings the provider's settings
         * @return this builder
         * @throws InvalidSettingException naming {@code api} when its value is neither
         */
        public Builder api(ProviderSettings settings) {
            Api.of(settings).ifPresent(this::api);
            return this;
        }

        /**
         * Sets {@code reasoning_effort} for reasoning models ({@code low}, {@code medium},
         * {@code high}, ...); unset, it is not sent.
         *
         * @param effort the effort
         * @return this builder
         */
        public Builder reasoningEffort(String effort) {
            if (effort == null || effort.isBlank()) {
                return options(defaults().toBuilder().reasoning(null).build());
            }
            try {
                return reasoning(Reasoning.effort(effort.strip()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(providerName() + ": " + e.getMessage(), e);
            }
        }

        /**
         * The wire format these settings give, without any HTTP: to see the exact request body a
         * chat becomes, or to parse a reply. Needs no key.
         *
         * @return the format
         * @throws IllegalArgumentException when the model is not set
         */
        public WireFormat wireFormat() {
            if (api == Api.RESPONSES) {
                return new ResponsesFormat(providerName(), requireModel(), defaults(), profile.checkRanges());
            }
            return new ChatCompletionsFormat(providerName(), requireModel(), maxTokensField, defaults(),
                    profile.maxStop(), profile.checkRanges());
        }

        @Override
        protected boolean apiKeyRequired() {
            return profile.apiKeyRequired();
        }

        @Override
        public OpenAiCompleter build() {
            String model = requireModel();
            Optional<String> key = profile.apiKeyRequired() ? Optional.of(requireApiKey()) : resolveApiKey();
            WireFormat format = wireFormat();
            return new OpenAiCompleter(assemble(format, key.map(Auth::bearer).orElse(Auth.none()), Map.of(),
                    "OpenAiCompleter[name=" + providerName() + ", model=" + model + ", baseUrl=" + maskedBaseUrl()
                            + (api == Api.RESPONSES ? ", api=responses" : "") + "]"));
        }
    }
}
