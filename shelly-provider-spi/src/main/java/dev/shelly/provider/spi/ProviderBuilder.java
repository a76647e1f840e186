package dev.shelly.provider.spi;

import dev.shelly.chats.internal.Redaction;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelOptions.CacheHints;
import dev.shelly.modeladapter.ModelOptions.Reasoning;
import dev.shelly.modeladapter.ModelTarget;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.modeladapter.RetryingCompleter;
import dev.shelly.modeladapter.RetryingCompleter.RetryListener;
import dev.shelly.modeladapter.RetryingCompleter.Sleeper;
import dev.shelly.modeladapter.UsageTracker;
import dev.shelly.modeladapter.spi.CompleterFactory;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import dev.shelly.modeladapter.spi.ProviderSettings;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The settings every HTTP provider shares, with the environment as fallback: base URL, API key,
 * model, max tokens, temperature, extra headers, timeouts, retries, usage tracking and the
 * shared transport.
 *
 * <p>The API key and base URL come from code when set there, else from the provider's
 * conventional environment variables (such as {@code ANTHROPIC_API_KEY} and
 * {@code ANTHROPIC_BASE_URL}), else the base URL falls back to the provider's default. The
 * environment lookup is replaceable ({@link #environment}) so tests never depend on the real
 * environment. {@link #toString()} never shows the key, and masks the query and user-info of
 * the base URL.
 *
 * <p>Every call has an overall deadline, {@link #DEFAULT_CALL_TIMEOUT} (10 minutes) unless
 * {@link #callTimeout(Duration)} says otherwise: it covers connecting, sending,
 * waiting and reading the whole reply, streamed or not, so a server that trickles bytes cannot
 * hold a call longer.
 *
 * @param <B> the concrete builder type, returned by every setter
 */
public abstract class ProviderBuilder<B extends ProviderBuilder<B>> {
    /** The default deadline of a whole call: 10 minutes. */
    public static final Duration DEFAULT_CALL_TIMEOUT = HttpModelClient.DEFAULT_CALL_TIMEOUT;

    private String name;
    /** The provider's own name, kept when {@link #name} gives it another: what telemetry calls it. */
    private String system;
    private final Endpoint endpoint;
    private String model;
    private ModelOptions options = ModelOptions.NONE;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private Duration connectTimeout = HttpModelClient.DEFAULT_CONNECT_TIMEOUT;
    private Duration readTimeout = HttpModelClient.DEFAULT_READ_TIMEOUT;
    private Duration callTimeout = HttpModelClient.DEFAULT_CALL_TIMEOUT;
    private RetryPolicy retry = RetryPolicy.defaults();
    private RetryListener retryListener = RetryListener.NONE;
    private Sleeper sleeper = Sleeper.SYSTEM;
    private UsageTracker usageTracker;
    private Clock clock = Clock.systemUTC();

    /**
     * Starts the settings of a provider.
     *
     * @param name the provider's name, used in errors and reply metadata
     * @param defaultBaseUrl the base URL when none is given, or null when one must be given
     * @param apiKeyVariable the environment variable holding the key, or null for none
     * @param baseUrlVariable the environment variable holding the base URL, or null for none
     */
    protected ProviderBuilder(String name, String defaultBaseUrl, String apiKeyVariable, String baseUrlVariable) {
        this(name, defaultBaseUrl, apiKeyVariable == null ? List.of() : List.of(apiKeyVariable), baseUrlVariable);
    }

    /**
     * Starts the settings of a provider whose key may come from one of several environment
     * variables, the first set one winning (Gemini: {@code GEMINI_API_KEY}, then
     * {@code GOOGLE_API_KEY}).
     *
     * @param name the provider's name, used in errors and reply metadata
     * @param defaultBaseUrl the base URL when none is given, or null when one must be given
     * @param apiKeyVariables the environment variables that may hold the key, in order of
     *     preference; empty for none
     * @param baseUrlVariable the environment variable holding the base URL, or null for none
     */
    protected ProviderBuilder(String name, String defaultBaseUrl, List<String> apiKeyVariables, String baseUrlVariable) {
        this.name = name;
        this.endpoint = new Endpoint(defaultBaseUrl, apiKeyVariables, baseUrlVariable);
    }

    /**
     * This builder as its concrete type.
     *
     * @return {@code this}
     */
    @SuppressWarnings("unchecked")
    protected final B self() {
        return (B) this;
    }

    /**
     * Sets the provider's name, as errors and reply metadata show it ({@code ollama}, say).
     *
     * @param value the name
     * @return this builder
     */
    public B name(String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + ": provider name must not be null or blank");
        }
        if (system == null) {
            system = name;
        }
        this.name = value.strip();
        return self();
    }

    /**
     * Sets the base URL; null falls back to the environment and then the default.
     *
     * @param value such as {@code https://api.openai.com/v1}
     * @return this builder
     */
    public B baseUrl(String value) {
        endpoint.baseUrl = Endpoint.blankToNull(value);
        return self();
    }

    /**
     * Sets the API key; null falls back to the environment.
     *
     * @param value the key; never shown by {@link #toString()}
     * @return this builder
     */
    public B apiKey(String value) {
        endpoint.apiKey = Endpoint.blankToNull(value);
        return self();
    }

    /**
     * Sets the model.
     *
     * @param value the provider's model name
     * @return this builder
     */
    public B model(String value) {
        this.model = Endpoint.blankToNull(value);
        return self();
    }

    /**
     * Sets the most tokens the model may generate in one reply.
     *
     * @param value at least 1
     * @return this builder
     */
    public B maxTokens(int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + ": maxTokens must be at least 1, was " + value);
        }
        options = options.toBuilder().maxTokens(value).build();
        return self();
    }

    /**
     * Sets the sampling temperature; unset, the provider's default applies.
     *
     * @param value zero or more
     * @return this builder
     */
    public B temperature(double value) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(name + ": temperature must be zero or more, was " + value);
        }
        options = options.toBuilder().temperature(value).build();
        return self();
    }

    /**
     * Sets nucleus sampling; unset, the provider's default applies.
     *
     * @param value above 0, at most 1
     * @return this builder
     */
    public B topP(double value) {
        options = checked(() -> options.toBuilder().topP(value).build());
        return self();
    }

    /**
     * Sets the stop sequences sent with every request.
     *
     * @param values the sequences; none null or empty
     * @return this builder
     */
    public B stop(String... values) {
        if (values == null) {
            throw new IllegalArgumentException(name + ": stop must not be null");
        }
        options = checked(() -> options.toBuilder().stop(values).build());
        return self();
    }

    /**
     * Sets how much the model reasons on every request ({@link Reasoning#budget} for Anthropic,
     * {@link Reasoning#effort} for OpenAI and xAI).
     *
     * @param value the reasoning
     * @return this builder
     */
    public B reasoning(Reasoning value) {
        if (value == null) {
            throw new IllegalArgumentException(name + ": reasoning must not be null");
        }
        options = options.toBuilder().reasoning(value).build();
        return self();
    }

    /**
     * Sets the prompt-cache hints of every request; unset, a request carries none.
     *
     * @param value the hints
     * @return this builder
     */
    public B cache(CacheHints value) {
        if (value == null) {
            throw new IllegalArgumentException(name + ": cache must not be null");
        }
        options = options.toBuilder().cache(value).build();
        return self();
    }

    /**
     * Replaces every default option at once. A request's own options win field by field.
     *
     * @param value the defaults
     * @return this builder
     */
    public B options(ModelOptions value) {
        if (value == null) {
            throw new IllegalArgumentException(name + ": options must not be null");
        }
        options = value;
        return self();
    }

    private ModelOptions checked(java.util.function.Supplier<ModelOptions> change) {
        try {
            return change.get();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
        }
    }

    /**
     * Adds or replaces a header sent with every request (it wins over the provider's own
     * headers of the same name). Its value is treated as a secret: one of 8 characters or more
     * is redacted from every error the provider sends back.
     *
     * @param headerName the header's name, an HTTP token
     * @param value its value: no control character (tab aside) and no non-ASCII character
     * @return this builder
     * @throws IllegalArgumentException naming the header, never quoting its value, when the
     *     name or the value cannot be sent
     */
    public B header(String headerName, String value) {
        HeaderRules.check(name, headerName, value);
        headers.put(headerName, value);
        return self();
    }

    /**
     * Adds or replaces several headers.
     *
     * @param values header names and values
     * @return this builder
     */
    public B headers(Map<String, String> values) {
        if (values != null) {
            values.forEach(this::header);
        }
        return self();
    }

    /**
     * Sets the connect timeout (default 10 s).
     *
     * @param value zero for none
     * @return this builder
     */
    public B connectTimeout(Duration value) {
        this.connectTimeout = notNegative(value, "connectTimeout");
        return self();
    }

    /**
     * Sets the longest silence while reading a reply (default 10 minutes, since a non-streamed
     * reply may take minutes to start).
     *
     * @param value zero for none
     * @return this builder
     */
    public B readTimeout(Duration value) {
        this.readTimeout = notNegative(value, "readTimeout");
        return self();
    }

    /**
     * Sets the deadline of each whole HTTP call: connecting, sending, waiting and reading the
     * whole reply, streamed or not (default {@link #DEFAULT_CALL_TIMEOUT}, 10 minutes). A server
     * that trickles bytes cannot extend it; a call that reaches it fails with a {@code TIMEOUT}
     * that is not retried.
     *
     * @param value zero for no deadline
     * @return this builder
     */
    public B callTimeout(Duration value) {
        this.callTimeout = notNegative(value, "callTimeout");
        return self();
    }

    /**
     * Sets the retry policy (default {@link RetryPolicy#defaults()}; {@link RetryPolicy#none()}
     * turns retrying off).
     *
     * @param value the policy
     * @return this builder
     */
    public B retry(RetryPolicy value) {
        this.retry = value == null ? RetryPolicy.defaults() : value;
        return self();
    }

    /**
     * Sets the listener told about each retry.
     *
     * @param value the listener
     * @return this builder
     */
    public B retryListener(RetryListener value) {
        this.retryListener = value == null ? RetryListener.NONE : value;
        return self();
    }

    /**
     * Sets how to wait between retries; tests pass one that does not really sleep.
     *
     * @param value the sleeper
     * @return this builder
     */
    public B sleeper(Sleeper value) {
        this.sleeper = value == null ? Sleeper.SYSTEM : value;
        return self();
    }

    /**
     * Sets the tracker that records every reply's usage, streamed or not.
     *
     * @param value the tracker, shared as widely as you want to account
     * @return this builder
     */
    public B usageTracker(UsageTracker value) {
        this.usageTracker = value;
        return self();
    }

    /**
     * Sets how environment variables are looked up (default {@link System#getenv(String)}).
     *
     * @param value returns a variable's value, or null when it is not set
     * @return this builder
     */
    public B environment(UnaryOperator<String> value) {
        endpoint.environment = value == null ? System::getenv : value;
        return self();
    }

    /**
     * Sets the clock that dates responses, for {@code retry-after} dates.
     *
     * @param value the clock
     * @return this builder
     */
    public B clock(Clock value) {
        this.clock = value == null ? Clock.systemUTC() : value;
        return self();
    }

    /**
     * Builds the completer.
     *
     * @return the completer
     * @throws IllegalArgumentException when a required setting is missing, naming the setting
     *     and the environment variable that could supply it
     */
    public abstract Completer build();

    /**
     * Builds the completer from configured settings, for a {@link CompleterFactory}: reads the
     * settings every HTTP provider shares ({@code model}, required; {@code base_url},
     * {@code api_key}, {@code max_tokens}, {@code temperature}, {@code timeout}, {@code headers})
     * and the environment lookup, then builds. Retrying is left to the caller (the engine retries
     * around the completer it gets), so this completer does not retry. A kind with settings of
     * its own reads them before calling this.
     *
     * @param settings the provider's settings
     * @return the completer
     * @throws InvalidSettingException naming the field when a setting is missing or wrong: also
     *     {@code api_key} when no key is configured nor in the provider's environment variable,
     *     and {@code base_url} likewise
     */
    public final Completer build(ProviderSettings settings) {
        environment(settings.environment());
        retry(RetryPolicy.none());
        model(settings.string("model"));
        settings.optionalUrl("base_url").ifPresent(this::baseUrl);
        settings.optionalSecret("api_key").ifPresent(this::apiKey);
        settings.optionalInteger("max_tokens", 1).ifPresent(this::maxTokens);
        settings.optionalNumber("temperature", 0, 2).ifPresent(this::temperature);
        settings.optionalDuration("timeout").ifPresent(this::callTimeout);
        Map<String, String> extra = settings.stringMap("headers");
        extra.forEach((header, value) -> {
            try {
                header(header, value);
            } catch (IllegalArgumentException e) {
                throw new InvalidSettingException("headers." + header, e.getMessage());
            }
        });
        endpoint.checkSettings(name, apiKeyRequired());
        return build();
    }

    /**
     * Whether {@link #build()} fails without an API key; {@link #build(ProviderSettings)} checks
     * it first, to name the field.
     *
     * @return true by default when the provider has an API-key environment variable
     */
    protected boolean apiKeyRequired() {
        return endpoint.hasKeyVariable();
    }

    /**
     * The provider's name.
     *
     * @return the name
     */
    protected final String providerName() {
        return name;
    }

    /**
     * The model, which must be set.
     *
     * @return the model
     * @throws IllegalArgumentException when it was not set
     */
    protected final String requireModel() {
        if (model == null) {
            throw new IllegalArgumentException(name + ": model must be set");
        }
        return model;
    }

    /**
     * The default options gathered from the setters: what the wire format merges under each
     * request's own options.
     *
     * @return the defaults, {@link ModelOptions#NONE} when none were set
     */
    protected final ModelOptions defaults() {
        return options;
    }

    /**
     * The API key from code, else from the environment variable.
     *
     * @return the key, or empty when neither gives one
     */
    protected final Optional<String> resolveApiKey() {
        return endpoint.apiKey(name);
    }

    /**
     * A variable of the environment this builder reads ({@link #environment}), for a provider's
     * own settings that have a conventional variable (Azure's {@code OPENAI_API_VERSION}).
     *
     * @param variable the variable's name
     * @return its value, stripped, or empty when unset or blank
     */
    protected final Optional<String> environmentValue(String variable) {
        return endpoint.environmentValue(variable);
    }

    /**
     * The API key, which must be given in code or by the environment.
     *
     * @return the key
     * @throws IllegalArgumentException naming the setter and the environment variable
     */
    protected final String requireApiKey() {
        return endpoint.requireApiKey(name);
    }

    /**
     * The base URL from code, else from the environment variable, else the default.
     *
     * @return the base URL
     * @throws IllegalArgumentException when none of them gives one
     */
    protected final String resolveBaseUrl() {
        return endpoint.baseUrl(name);
    }

    /**
     * The base URL as a {@code toString} may show it: query and user-info masked.
     *
     * @return the masked base URL
     */
    protected final String maskedBaseUrl() {
        return Redaction.maskUrl(resolveBaseUrl());
    }

    /**
     * Assembles the completer: the HTTP client (shared pool, timeouts, auth, the provider's
     * headers overridden by the user's), the wire format, usage tracking and retries. A
     * provider's {@link #build()} passes the result to its completer class's constructor.
     *
     * @param format the provider's wire format
     * @param auth how requests authenticate
     * @param providerHeaders headers the provider requires, such as {@code anthropic-version}
     * @param description what the completer's {@code toString} says: its class, name, model and
     *     masked base URL, never the key
     * @return the completer
     */
    protected final HttpCompleter assemble(WireFormat format, Auth auth, Map<String, String> providerHeaders,
            String description) {
        HttpModelClient.Builder client = HttpModelClient.builder(name, resolveBaseUrl())
                .auth(auth)
                .clock(clock)
                .timeouts(connectTimeout, readTimeout, callTimeout);
        providerHeaders.forEach((k, v) -> {
            if (headers.keySet().stream().noneMatch(k::equalsIgnoreCase)) {
                client.providerHeader(k, v);
            }
        });
        headers.forEach(client::header);
        Completer calls = new WireCompleter(client.build(), format, usageTracker,
                new ModelTarget(system != null ? system : name, format.model()));
        if (retry.maxAttempts() > 1) {
            calls = RetryingCompleter.builder(calls).policy(retry).listener(retryListener).sleeper(sleeper).build();
        }
        return new HttpCompleter(calls, description);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[name=" + name + ", model=" + model + ", " + endpoint.describe()
                + ", maxTokens=" + options.maxTokens() + ", temperature="
                + options.temperature() + ", headers=" + headers.keySet() + ", callTimeout=" + callTimeout + ", retry=" + retry + "]";
    }

    private Duration notNegative(Duration d, String field) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException(name + ": " + field + " must be zero or positive, was " + d);
        }
        return d;
    }
}
