package dev.shelly.providers.anthropic;

import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelOptions.Reasoning;
import dev.shelly.provider.spi.Auth;
import dev.shelly.provider.spi.HttpCompleter;
import dev.shelly.provider.spi.ProviderBuilder;
import dev.shelly.provider.spi.WireFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A completer for Anthropic's Messages API ({@code POST /v1/messages}).
 *
 * <p>System messages become the top-level {@code system} prompt; tool results travel in a user
 * message, ahead of any text; consecutive messages of the same side are merged; thinking blocks
 * come back as {@link dev.shelly.chats.Thinking} parts with their signature and are sent back
 * unchanged. Parts Anthropic cannot take (a custom part, an image in an assistant message,
 * unsigned thinking from another provider, text that is only white space) are left out of the
 * request.
 *
 * <pre>{@code
 * Completer claude = AnthropicCompleter.builder().model("claude-sonnet-4-5").build();  // key from ANTHROPIC_API_KEY
 * }</pre>
 */
public final class AnthropicCompleter extends HttpCompleter {
    /** The default base URL; the endpoint is {@code <base>/v1/messages}. */
    public static final String DEFAULT_BASE_URL = "https://api.anthropic.com";
    /** The API version sent in {@code anthropic-version}. */
    public static final String API_VERSION = "2023-06-01";
    /** The max tokens when none is set: Anthropic requires a value. */
    public static final int DEFAULT_MAX_TOKENS = 4096;

    private AnthropicCompleter(HttpCompleter assembled) {
        super(assembled);
    }

    /**
     * Starts a completer; the key and base URL default to {@code ANTHROPIC_API_KEY} and
     * {@code ANTHROPIC_BASE_URL}.
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A completer for a model with everything else from the environment and the defaults.
     *
     * @param model the model, such as {@code claude-sonnet-4-5}
     * @return the completer
     * @throws IllegalArgumentException when {@code ANTHROPIC_API_KEY} is not set
     */
    public static AnthropicCompleter fromEnvironment(String model) {
        return builder().model(model).build();
    }

    /** How a JSON response format reaches the Messages API. */
    public enum StructuredOutputs {
        /** NATIVE, except on models without native structured outputs (before Claude 4.5), and for non-strict schemas. */
        AUTO,
        /** {@code output_config.format}, for strict schemas; a non-strict schema still goes as a tool. */
        NATIVE,
        /** A forced {@code final_answer} tool whose input is the answer. */
        TOOL
    }

    /** Configures an {@link AnthropicCompleter}. */
    public static final class Builder extends ProviderBuilder<Builder> {
        private String version = API_VERSION;
        private StructuredOutputs structuredOutputs = StructuredOutputs.AUTO;

        private Builder() {
            super("anthropic", DEFAULT_BASE_URL, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL");
        }

        /**
         * Turns on extended thinking with a token budget ({@code thinking: {type: enabled,
         * budget_tokens: n}}); it must be less than max tokens.
         *
         * @param budgetTokens at least 1024, as Anthropic requires
         * @return this builder
         */
        public Builder thinkingBudget(int budgetTokens) {
            if (budgetTokens < 1024) {
                throw new IllegalArgumentException(providerName() + ": thinkingBudget must be at least 1024, was "
                        + budgetTokens);
            }
            return reasoning(Reasoning.budget(budgetTokens));
        }

        /**
         * Sets how a JSON response format is sent: natively ({@code output_config.format}), as a
         * forced {@code final_answer} tool, or chosen by model ({@link StructuredOutputs#AUTO},
         * the default).
         *
         * @param value the mode
         * @return this builder
         */
        public Builder structuredOutputs(StructuredOutputs value) {
            if (value == null) {
                throw new IllegalArgumentException(providerName() + ": structuredOutputs must not be null");
            }
            this.structuredOutputs = value;
            return this;
        }

        /**
         * Sets the {@code anthropic-version} header (default {@value #API_VERSION}).
         *
         * @param value the version
         * @return this builder
         */
        public Builder version(String value) {
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException(providerName() + ": version must not be blank");
            }
            this.version = value.strip();
            return this;
        }

        /**
         * The wire format these settings give, without any HTTP: to see the exact request body a
         * chat becomes, or to parse a reply. Needs no key.
         *
         * @return the format
         * @throws IllegalArgumentException when the model is not set or the thinking budget does
         *     not fit in max tokens
         */
        public WireFormat wireFormat() {
            int maxTokens = defaults().maxTokens() != null ? defaults().maxTokens() : DEFAULT_MAX_TOKENS;
            if (defaults().reasoning() instanceof Reasoning.Budget b && b.tokens() >= maxTokens) {
                throw new IllegalArgumentException(providerName() + ": thinkingBudget (" + b.tokens()
                        + ") must be less than maxTokens (" + maxTokens + ")");
            }
            return new AnthropicFormat(providerName(), requireModel(), defaults(), structuredOutputs);
        }

        @Override
        public AnthropicCompleter build() {
            WireFormat format = wireFormat();
            String model = requireModel();
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("anthropic-version", version);
            return new AnthropicCompleter(assemble(format, Auth.header("x-api-key", requireApiKey()), headers,
                    "AnthropicCompleter[name=" + providerName() + ", model=" + model + ", baseUrl=" + maskedBaseUrl() + "]"));
        }
    }
}
