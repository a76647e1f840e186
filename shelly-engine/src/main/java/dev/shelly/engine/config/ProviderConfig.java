package dev.shelly.engine.config;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A model provider the engine builds: which protocol, where, with which key and model.
 *
 * <p>Absent values fall back to the provider's defaults; an absent key or base URL is read from
 * the provider's conventional environment variables ({@code ANTHROPIC_API_KEY}, ...). The key
 * never appears in {@link #toString()}.
 *
 * @param name how agents refer to this provider
 * @param kind the wire protocol
 * @param model the model name, e.g. {@code claude-sonnet-4-5}
 * @param baseUrl the API's base URL, or null for the default
 * @param apiKey the API key, or null to read the environment
 * @param maxTokens the most tokens a reply may have, or null for the default
 * @param temperature sampling temperature, or null for the provider's default
 * @param timeout the deadline of each whole HTTP call (connecting, sending, waiting and reading
 *     the whole reply, streamed or not, which a server that trickles bytes cannot extend), or
 *     null for the providers' default of 10 minutes
 * @param headers extra HTTP headers sent with every request
 * @param retry how transient failures are retried
 * @param requestsPerMinute a client-side rate limit, or null for none
 * @param tokensPerMinute a client-side limit on tokens per minute, or null for none; it takes a
 *     requests-per-minute limit too
 */
public record ProviderConfig(String name, ProviderKind kind, String model, String baseUrl, String apiKey,
        Integer maxTokens, Double temperature, Duration timeout, Map<String, String> headers, RetryConfig retry,
        Integer requestsPerMinute, Long tokensPerMinute) {

    /** Validates and copies. */
    public ProviderConfig {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("ProviderConfig.name must not be null or blank");
        }
        if (kind == null) {
            throw new IllegalArgumentException("ProviderConfig.kind of '" + name + "' must not be null");
        }
        if (model == null || model.isBlank()) {
            throw new IllegalArgumentException("ProviderConfig.model of '" + name + "' must not be null or blank");
        }
        if (maxTokens != null && maxTokens <= 0) {
            throw new IllegalArgumentException("ProviderConfig.maxTokens of '" + name + "' must be positive, was " + maxTokens);
        }
        if (requestsPerMinute != null && requestsPerMinute <= 0) {
            throw new IllegalArgumentException("ProviderConfig.requestsPerMinute of '" + name + "' must be positive");
        }
        if (tokensPerMinute != null && (tokensPerMinute <= 0 || requestsPerMinute == null)) {
            throw new IllegalArgumentException("ProviderConfig.tokensPerMinute of '" + name
                    + "' must be positive and come with a requestsPerMinute limit");
        }
        headers = headers == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        retry = retry == null ? RetryConfig.DEFAULT : retry;
    }

    /**
     * Starts a provider configuration.
     *
     * @param name how agents refer to it
     * @param kind the wire protocol
     * @param model the model name
     * @return a builder
     */
    public static Builder builder(String name, ProviderKind kind, String model) {
        return new Builder(name, kind, model);
    }

    @Override
    public String toString() {
        return "ProviderConfig[name=" + name + ", kind=" + kind + ", model=" + model + ", baseUrl=" + baseUrl
                + ", apiKey=" + (apiKey == null ? "(from environment)" : "***") + ", maxTokens=" + maxTokens
                + ", temperature=" + temperature + ", timeout=" + timeout + ", headers=" + headers.keySet()
                + ", retry=" + retry + ", requestsPerMinute=" + requestsPerMinute
                + ", tokensPerMinute=" + tokensPerMinute + "]";
    }

    /** Collects the optional settings of a provider. */
    public static final class Builder {
        private final String name;
        private final ProviderKind kind;
        private final String model;
        private String baseUrl;
        private String apiKey;
        private Integer maxTokens;
        private Double temperature;
        private Duration timeout;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private RetryConfig retry;
        private Integer requestsPerMinute;
        private Long tokensPerMinute;

        private Builder(String name, ProviderKind kind, String model) {
            this.name = name;
            this.kind = kind;
            this.model = model;
        }

        /**
         * Sets the base URL.
         *
         * @param value e.g. {@code http://localhost:11434/v1}
         * @return this builder
         */
        public Builder baseUrl(String value) {
            this.baseUrl = value;
            return this;
        }

        /**
         * Sets the API key.
         *
         * @param value the key
         * @return this builder
         */
        public Builder apiKey(String value) {
            this.apiKey = value;
            return this;
        }

        /**
         * Sets the reply length limit.
         *
         * @param value tokens
         * @return this builder
         */
        public Builder maxTokens(int value) {
            this.maxTokens = value;
            return this;
        }

        /**
         * Sets the sampling temperature.
         *
         * @param value the temperature
         * @return this builder
         */
        public Builder temperature(double value) {
            this.temperature = value;
            return this;
        }

        /**
         * Sets the deadline of each whole HTTP call (default 10 minutes).
         *
         * @param value the deadline
         * @return this builder
         */
        public Builder timeout(Duration value) {
            this.timeout = value;
            return this;
        }

        /**
         * Adds an HTTP header sent with every request.
         *
         * @param headerName the header
         * @param value its value
         * @return this builder
         */
        public Builder header(String headerName, String value) {
            headers.put(headerName, value);
            return this;
        }

        /**
         * Sets the retry policy.
         *
         * @param value the policy
         * @return this builder
         */
        public Builder retry(RetryConfig value) {
            this.retry = value;
            return this;
        }

        /**
         * Limits requests per minute on the client side.
         *
         * @param value requests per minute
         * @return this builder
         */
        public Builder requestsPerMinute(int value) {
            this.requestsPerMinute = value;
            return this;
        }

        /**
         * Limits tokens per minute on the client side (with {@link #requestsPerMinute}).
         *
         * @param value tokens per minute
         * @return this builder
         */
        public Builder tokensPerMinute(long value) {
            this.tokensPerMinute = value;
            return this;
        }

        /**
         * Builds the configuration.
         *
         * @return the configuration
         */
        public ProviderConfig build() {
            return new ProviderConfig(name, kind, model, baseUrl, apiKey, maxTokens, temperature, timeout, headers,
                    retry, requestsPerMinute, tokensPerMinute);
        }
    }
}
