package dev.shelly.engine.config;

import com.fasterxml.jackson.annotation.JsonAnySetter;
import dev.shelly.modeladapter.CircuitBreaker;
import dev.shelly.modeladapter.FallbackCompleter;
import dev.shelly.modeladapter.RateLimit;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A model provider the engine builds: its name, its kind (which {@code CompleterFactory} builds
 * it), its model and the settings its kind reads.
 *
 * <p>The settings every HTTP provider shares are components; a kind's own settings go in
 * {@link #settings()} (in {@code config.yaml}, every field that is not a component lands there).
 * The engine hands all of them, except {@link #ENGINE_FIELDS}, to the kind's factory as
 * {@code ProviderSettings}; a field the factory never reads is reported as unknown. Absent values
 * fall back to the provider's defaults; an absent key or base URL is read from the provider's
 * conventional environment variables ({@code ANTHROPIC_API_KEY}, ...). Neither the key nor any
 * of the kind's own settings appears in {@link #toString()}.
 *
 * @param name how agents refer to this provider
 * @param kind the kind of provider, such as {@code anthropic}, {@code openai}, {@code grok},
 *     {@code openai-compatible}, or a kind of your own
 * @param model the model name, e.g. {@code claude-sonnet-4-5}
 * @param baseUrl the API's base URL, or null for the default
 * @param apiKey the API key, or null to read the environment
 * @param maxTokens the most tokens a reply may have, or null for the default
 * @param temperature sampling temperature, or null for the provider's default
 * @param timeout the deadline of each whole HTTP call (connecting, sending, waiting and reading
 *     the whole reply, streamed or not, which a server that trickles bytes cannot extend), or
 *     null for the providers' default of 10 minutes
 * @param headers extra HTTP headers sent with every request
 * @param retry how transient failures are retried (the engine retries around the provider); the
 *     {@code retry:} section sets {@code max_attempts}, {@code initial_delay} and {@code max_delay}
 *     of it; null for {@link #DEFAULT_RETRY}
 * @param rateLimit a client-side rate limit (the {@code rate_limit:} section:
 *     {@code requests_per_minute} and {@code tokens_per_minute}), or null for none; shared by every
 *     engine instance through Redis when the configuration has a {@code redis:} section
 * @param fallback the providers asked, in order, when this one cannot answer (it is down, out of
 *     quota, rate-limited for long, refuses its key); each by its name; empty for none
 * @param fallbackWait how long this provider's requests wait, once, for a rate limit that says
 *     when to come back before going to the fallback; null for 5 s
 * @param circuitBreaker when this provider is skipped by the fallback chains that name it
 * @param settings the kind's own settings, by field name, as plain values (text, numbers,
 *     booleans, lists and mappings of them)
 */
public record ProviderConfig(String name, String kind, String model, String baseUrl, String apiKey,
        Integer maxTokens, Double temperature, Duration timeout, Map<String, String> headers, RetryPolicy retry,
        RateLimit rateLimit, List<String> fallback, Duration fallbackWait, Breaker circuitBreaker,
        @JsonAnySetter Map<String, Object> settings) {

    /** The fields the engine applies itself and does not hand to the provider's factory. */
    public static final Set<String> ENGINE_FIELDS = Set.of("name", "kind", "retry", "rate_limit", "fallback",
            "fallback_wait", "circuit_breaker");

    /**
     * How a provider retries unless its {@code retry:} says otherwise: three attempts, from 1 s up
     * to 30 s apart; a provider's retry-after is not capped by the delays but honoured up to 60 s.
     */
    public static final RetryPolicy DEFAULT_RETRY = RetryPolicy.defaults().withDelays(Duration.ofSeconds(1),
            Duration.ofSeconds(30));

    /** Validates and copies. */
    public ProviderConfig {
        Fields.required(name, "name");
        Fields.required(kind, "kind");
        kind = kind.strip();
        Fields.required(model, "model");
        baseUrl = Fields.httpUrl(baseUrl, "base_url");
        apiKey = apiKey == null || apiKey.isBlank() ? null : apiKey;
        Fields.positive(maxTokens, "max_tokens");
        Fields.within(temperature, 0, 2, "temperature");
        headers = headers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        retry = retry == null ? DEFAULT_RETRY : retry;
        fallback = fallback == null ? List.of() : List.copyOf(fallback);
        fallbackWait = fallbackWait == null ? FallbackCompleter.DEFAULT_RATE_LIMIT_WAIT : fallbackWait;
        if (fallbackWait.isNegative()) {
            throw new InvalidSettingException("fallback_wait", "must not be negative, was " + fallbackWait);
        }
        circuitBreaker = circuitBreaker == null ? Breaker.DEFAULT : circuitBreaker;
        Map<String, Object> own = new LinkedHashMap<>();
        if (settings != null) {
            settings.forEach((field, value) -> {
                if (field == null || field.isBlank()) {
                    throw new InvalidSettingException("", "a setting's name must not be blank");
                }
                own.put(field, value);
            });
        }
        settings = Collections.unmodifiableMap(own);
    }

    /**
     * Starts a provider configuration.
     *
     * @param name how agents refer to it
     * @param kind the kind of provider, such as {@code openai}
     * @param model the model name
     * @return a builder
     */
    public static Builder builder(String name, String kind, String model) {
        return new Builder(name, kind, model);
    }

    /**
     * The same provider asking for another model: what an agent with its own {@code model} is
     * answered by.
     *
     * @param other the model's name
     * @return the provider with that model; this one when it is its model already
     */
    public ProviderConfig withModel(String other) {
        if (other == null || other.equals(model)) {
            return this;
        }
        return new ProviderConfig(name, kind, other, baseUrl, apiKey, maxTokens, temperature, timeout, headers, retry,
                rateLimit, fallback, fallbackWait, circuitBreaker, settings);
    }

    /**
     * The settings the provider's factory reads: every field given, by its name in
     * {@code config.yaml}, except {@link #ENGINE_FIELDS}; durations as ISO-8601 text.
     *
     * @return the fields and their plain values, in order
     */
    public Map<String, Object> factorySettings() {
        Map<String, Object> all = new LinkedHashMap<>();
        @SuppressWarnings("unchecked")
        Map<String, Object> fields = ConfigBinder.MAPPER.convertValue(this, Map.class);
        fields.forEach((field, value) -> {
            if (!ENGINE_FIELDS.contains(field) && !field.equals("settings")
                    && !(value instanceof Map<?, ?> m && m.isEmpty())) {
                all.put(field, value);
            }
        });
        all.putAll(settings);
        return Collections.unmodifiableMap(all);
    }

    @Override
    public String toString() {
        return "ProviderConfig[name=" + name + ", kind=" + kind + ", model=" + model + ", baseUrl=" + baseUrl
                + ", apiKey=" + (apiKey == null ? "(from environment)" : "***") + ", maxTokens=" + maxTokens
                + ", temperature=" + temperature + ", timeout=" + timeout + ", headers=" + headers.keySet()
                + ", retry=" + retry + ", rateLimit=" + rateLimit + ", fallback=" + fallback + ", fallbackWait=" + fallbackWait
                + ", circuitBreaker=" + circuitBreaker + ", settings="
                + settings.keySet() + "]";
    }

    /**
     * When a provider is skipped by the fallback chains that name it: the {@code circuit_breaker:}
     * section of a provider. One {@link CircuitBreaker} per provider is made from it when the
     * engine is built, shared by every chain that names the provider.
     *
     * @param failures consecutive failures (of the kinds another provider could fix) after which the
     *     provider is skipped; null for {@value CircuitBreaker#DEFAULT_FAILURE_THRESHOLD}
     * @param coolDown how long it is skipped before one probe request decides; null for 30 s
     */
    public record Breaker(Integer failures, Duration coolDown) {

        /** Three failures, thirty seconds. */
        public static final Breaker DEFAULT = new Breaker(null, null);

        /** Fills in the defaults and validates the values. */
        public Breaker {
            failures = Fields.positive(failures == null ? CircuitBreaker.DEFAULT_FAILURE_THRESHOLD : failures, "failures");
            coolDown = coolDown == null ? CircuitBreaker.DEFAULT_COOL_DOWN : coolDown;
            if (coolDown.isNegative() || coolDown.isZero()) {
                throw new InvalidSettingException("cool_down", "must be positive, was " + coolDown);
            }
        }

        /**
         * A breaker with these settings.
         *
         * @return a new breaker
         */
        public CircuitBreaker breaker() {
            return CircuitBreaker.of(failures, coolDown);
        }
    }

    /** Collects the optional settings of a provider. */
    public static final class Builder {
        private final String name;
        private final String kind;
        private final String model;
        private String baseUrl;
        private String apiKey;
        private Integer maxTokens;
        private Double temperature;
        private Duration timeout;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private RetryPolicy retry;
        private RateLimit rateLimit;
        private final List<String> fallback = new ArrayList<>();
        private Duration fallbackWait;
        private Breaker circuitBreaker;
        private final Map<String, Object> settings = new LinkedHashMap<>();

        private Builder(String name, String kind, String model) {
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
         * @param value the policy, for example {@code ProviderConfig.DEFAULT_RETRY.withMaxAttempts(5)}
         * @return this builder
         */
        public Builder retry(RetryPolicy value) {
            this.retry = value;
            return this;
        }

        /**
         * Limits requests (and tokens) per minute on the client side.
         *
         * @param value the limit
         * @return this builder
         */
        public Builder rateLimit(RateLimit value) {
            this.rateLimit = value;
            return this;
        }

        /**
         * Adds providers to ask, in order, when this one cannot answer.
         *
         * @param providerNames the providers' names
         * @return this builder
         */
        public Builder fallback(String... providerNames) {
            fallback.addAll(List.of(providerNames));
            return this;
        }

        /**
         * Sets how long a rate-limited request waits, once, before going to the fallback.
         *
         * @param value the wait; zero never waits
         * @return this builder
         */
        public Builder fallbackWait(Duration value) {
            this.fallbackWait = value;
            return this;
        }

        /**
         * Sets when this provider is skipped by the fallback chains that name it.
         *
         * @param value the breaker's settings
         * @return this builder
         */
        public Builder circuitBreaker(Breaker value) {
            this.circuitBreaker = value;
            return this;
        }

        /**
         * Sets one of the kind's own settings, as {@code config.yaml} would give it.
         *
         * @param field the field's name, such as {@code deployment}
         * @param value a plain value: text, a number, a boolean, or a list or map of them
         * @return this builder
         */
        public Builder setting(String field, Object value) {
            settings.put(field, value);
            return this;
        }

        /**
         * Builds the configuration.
         *
         * @return the configuration
         * @throws InvalidSettingException naming the field that is missing or wrong
         */
        public ProviderConfig build() {
            return new ProviderConfig(name, kind, model, baseUrl, apiKey, maxTokens, temperature, timeout, headers,
                    retry, rateLimit, fallback, fallbackWait, circuitBreaker, settings);
        }
    }
}
