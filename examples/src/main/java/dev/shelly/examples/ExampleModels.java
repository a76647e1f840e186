package dev.shelly.examples;

import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.FallbackCompleter;
import dev.shelly.modeladapter.FallbackCompleter.FallbackListener;
import dev.shelly.modeladapter.RetryingCompleter.RetryListener;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.modeladapter.UsageTracker;
import dev.shelly.provider.spi.ProviderBuilder;
import dev.shelly.providers.anthropic.AnthropicCompleter;
import dev.shelly.providers.gemini.GeminiCompleter;
import dev.shelly.providers.openai.AzureOpenAiCompleter;
import dev.shelly.providers.grok.GrokCompleter;
import dev.shelly.providers.openai.OpenAiCompleter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Which model the examples talk to, chosen from environment variables.
 *
 * <ol>
 *   <li>{@code AZURE_OPENAI_API_KEY} and {@code AZURE_OPENAI_ENDPOINT} set: Azure OpenAI, the
 *       deployment {@code AZURE_OPENAI_DEPLOYMENT} (else {@link #DEFAULT_OPENAI_MODEL}), the API
 *       version {@code OPENAI_API_VERSION} (else the v1 paths).
 *   <li>else {@code ANTHROPIC_API_KEY}: Anthropic ({@code ANTHROPIC_BASE_URL} if set).
 *   <li>else {@code OPENAI_API_KEY}: OpenAI ({@code OPENAI_BASE_URL} if set).
 *   <li>else {@code XAI_API_KEY}: xAI's Grok ({@code XAI_BASE_URL} if set).
 *   <li>else {@code GEMINI_API_KEY} (or {@code GOOGLE_API_KEY}): Google's Gemini
 *       ({@code GEMINI_BASE_URL} if set).
 *   <li>else {@code OPENAI_BASE_URL}: an OpenAI-compatible server without a key (Ollama, vLLM,
 *       llama.cpp, LM Studio), e.g. {@code http://localhost:11434/v1}.
 *   <li>else nothing: a scripted model, in-process, without the network.
 * </ol>
 *
 * The providers of this list whose variables are set after the chosen one are its fallbacks, in
 * this order: a request the chosen one cannot answer (overloaded, down, out of quota,
 * rate-limited for long, refusing its key) goes to the next ({@link FallbackCompleter});
 * {@code SHELLY_FALLBACK=off} turns that off.
 * {@code SHELLY_PROVIDER} ({@code azure-openai}, {@code anthropic}, {@code openai}, {@code grok},
 * {@code gemini}, {@code openai-compatible} or {@code scripted}) picks one explicitly when several are set;
 * {@code SHELLY_MODEL} names the model, else each provider has a default
 * ({@link #DEFAULT_ANTHROPIC_MODEL}, {@link #DEFAULT_OPENAI_MODEL}, {@link #DEFAULT_GROK_MODEL},
 * {@link #DEFAULT_GEMINI_MODEL}, {@link #DEFAULT_COMPATIBLE_MODEL}).
 *
 * <pre>{@code
 * ExampleModels models = ExampleModels.select(System.getenv());
 * System.out.println(models.banner());   // [model: anthropic claude-sonnet-4-5]
 * if (!models.scripted()) {
 *     Completer model = models.open(RetryListener.NONE);
 * }
 * }</pre>
 *
 * <p>The selection is a value: it reads the given map only, never the process environment by
 * itself, and never shows a key.
 */
public final class ExampleModels {
    /** The model used with Anthropic when {@code SHELLY_MODEL} is not set. */
    public static final String DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5";
    /** The model used with OpenAI when {@code SHELLY_MODEL} is not set. */
    public static final String DEFAULT_OPENAI_MODEL = "gpt-4o-mini";
    /** The model used with Grok when {@code SHELLY_MODEL} is not set. */
    public static final String DEFAULT_GROK_MODEL = "grok-4";
    /** The model used with Gemini when {@code SHELLY_MODEL} is not set. */
    public static final String DEFAULT_GEMINI_MODEL = "gemini-2.5-flash";
    /** The model used with an OpenAI-compatible server when {@code SHELLY_MODEL} is not set. */
    public static final String DEFAULT_COMPATIBLE_MODEL = "llama3.2";

    /** The line a scripted run starts with. */
    public static final String SCRIPTED_BANNER =
            "[scripted model: no AZURE_OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENAI_API_KEY, XAI_API_KEY, GEMINI_API_KEY or"
                    + " OPENAI_BASE_URL set; see README]";

    /** The kinds of model the examples can use. */
    public enum Provider {
        /** OpenAI's Chat Completions on an Azure OpenAI deployment. */
        AZURE_OPENAI("azure-openai", AzureOpenAiCompleter.API_KEY_VARIABLE, AzureOpenAiCompleter.ENDPOINT_VARIABLE, null),
        /** Anthropic's Messages API. */
        ANTHROPIC("anthropic", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", AnthropicCompleter.DEFAULT_BASE_URL),
        /** OpenAI's Chat Completions API. */
        OPENAI("openai", "OPENAI_API_KEY", "OPENAI_BASE_URL", OpenAiCompleter.DEFAULT_BASE_URL),
        /** xAI's Grok. */
        GROK("grok", "XAI_API_KEY", "XAI_BASE_URL", GrokCompleter.DEFAULT_BASE_URL),
        /** Google's Gemini API; {@code GOOGLE_API_KEY} also serves as its key. */
        GEMINI("gemini", "GEMINI_API_KEY", "GEMINI_BASE_URL", GeminiCompleter.DEFAULT_BASE_URL),
        /** Any server speaking Chat Completions, without a key. */
        OPENAI_COMPATIBLE("openai-compatible", null, "OPENAI_BASE_URL", null),
        /** A scripted model in this process. */
        SCRIPTED("scripted", null, null, null);

        private final String kind;
        private final String apiKeyVariable;
        private final String baseUrlVariable;
        private final String defaultBaseUrl;

        Provider(String kind, String apiKeyVariable, String baseUrlVariable, String defaultBaseUrl) {
            this.kind = kind;
            this.apiKeyVariable = apiKeyVariable;
            this.baseUrlVariable = baseUrlVariable;
            this.defaultBaseUrl = defaultBaseUrl;
        }

        /**
         * The provider's kind as configuration names it ({@code anthropic}, {@code openai},
         * {@code grok}, {@code gemini}, {@code openai-compatible}; {@code scripted} for the
         * scripted model).
         *
         * @return the kind
         */
        public String kind() {
            return kind;
        }

        /**
         * The environment variable that holds the provider's key.
         *
         * @return its name, or empty when the provider needs none
         */
        public Optional<String> apiKeyVariable() {
            return Optional.ofNullable(apiKeyVariable);
        }

        /**
         * The environment variable that holds the provider's base URL.
         *
         * @return its name, or empty for the scripted model
         */
        public Optional<String> baseUrlVariable() {
            return Optional.ofNullable(baseUrlVariable);
        }

        static Provider ofKind(String kind) {
            String key = kind.strip().toLowerCase(Locale.ROOT);
            for (Provider p : values()) {
                if (p.kind.equals(key)) {
                    return p;
                }
            }
            if (key.equals("xai")) {
                return GROK;
            }
            throw new IllegalArgumentException("SHELLY_PROVIDER is '" + kind.strip()
                    + "'; expected azure-openai, anthropic, openai, grok, gemini, openai-compatible or scripted");
        }
    }

    private final Provider provider;
    private final String model;
    private final String baseUrl;
    private final Map<String, String> environment;
    private final List<ExampleModels> fallbacks;

    private ExampleModels(Provider provider, String model, String baseUrl, Map<String, String> environment,
            List<ExampleModels> fallbacks) {
        this.provider = provider;
        this.model = model;
        this.baseUrl = baseUrl;
        this.environment = environment;
        this.fallbacks = fallbacks;
    }

    /**
     * Chooses the model from environment variables, as the class comment describes.
     *
     * @param environment the variables, e.g. {@link System#getenv()}
     * @return the choice
     * @throws IllegalArgumentException when {@code SHELLY_PROVIDER} names an unknown provider,
     *     or one whose key or base URL is not set
     */
    public static ExampleModels select(Map<String, String> environment) {
        if (environment == null) {
            throw new IllegalArgumentException("ExampleModels.select environment must not be null");
        }
        Map<String, String> env = Map.copyOf(environment);
        String forced = value(env, "SHELLY_PROVIDER");
        Provider provider = forced != null ? Provider.ofKind(forced) : detect(env);
        if (forced != null) {
            requireSettings(provider, env);
        }
        if (provider == Provider.SCRIPTED) {
            return new ExampleModels(provider, "scripted", null, env, List.of());
        }
        List<ExampleModels> fallbacks = new ArrayList<>();
        if (!"off".equalsIgnoreCase(value(env, "SHELLY_FALLBACK"))) {
            for (Provider other : Provider.values()) {
                if (other != provider && other != Provider.SCRIPTED && isSet(other, env)) {
                    fallbacks.add(of(other, defaultModel(other, env), env, List.of()));
                }
            }
        }
        String model = value(env, "SHELLY_MODEL");
        return of(provider, model != null ? model : defaultModel(provider, env), env, List.copyOf(fallbacks));
    }

    private static ExampleModels of(Provider provider, String model, Map<String, String> env,
            List<ExampleModels> fallbacks) {
        String url = value(env, provider.baseUrlVariable);
        return new ExampleModels(provider, model, url != null ? url : provider.defaultBaseUrl, env, fallbacks);
    }

    /** Whether a provider's variables are set, as {@link #detect} reads them. */
    private static boolean isSet(Provider provider, Map<String, String> env) {
        return switch (provider) {
            case AZURE_OPENAI -> value(env, AzureOpenAiCompleter.API_KEY_VARIABLE) != null
                    && value(env, AzureOpenAiCompleter.ENDPOINT_VARIABLE) != null;
            case GEMINI -> value(env, "GEMINI_API_KEY") != null || value(env, "GOOGLE_API_KEY") != null;
            case OPENAI_COMPATIBLE -> value(env, "OPENAI_API_KEY") == null && value(env, "OPENAI_BASE_URL") != null;
            case SCRIPTED -> false;
            default -> value(env, provider.apiKeyVariable) != null;
        };
    }

    private static String defaultModel(Provider provider, Map<String, String> env) {
        return switch (provider) {
            case AZURE_OPENAI -> Optional.ofNullable(value(env, "AZURE_OPENAI_DEPLOYMENT")).orElse(DEFAULT_OPENAI_MODEL);
            case ANTHROPIC -> DEFAULT_ANTHROPIC_MODEL;
            case OPENAI -> DEFAULT_OPENAI_MODEL;
            case GROK -> DEFAULT_GROK_MODEL;
            case GEMINI -> DEFAULT_GEMINI_MODEL;
            default -> DEFAULT_COMPATIBLE_MODEL;
        };
    }

    private static Provider detect(Map<String, String> env) {
        for (Provider p : Provider.values()) {
            if (isSet(p, env)) {
                return p;
            }
        }
        return Provider.SCRIPTED;
    }

    private static void requireSettings(Provider provider, Map<String, String> env) {
        if (provider == Provider.GEMINI && value(env, "GEMINI_API_KEY") == null && value(env, "GOOGLE_API_KEY") == null) {
            throw new IllegalArgumentException("SHELLY_PROVIDER is gemini but neither GEMINI_API_KEY nor GOOGLE_API_KEY"
                    + " is set");
        }
        if (provider.apiKeyVariable != null && provider != Provider.GEMINI && value(env, provider.apiKeyVariable) == null) {
            throw new IllegalArgumentException("SHELLY_PROVIDER is " + provider.kind + " but " + provider.apiKeyVariable
                    + " is not set");
        }
        if (provider == Provider.AZURE_OPENAI && value(env, AzureOpenAiCompleter.ENDPOINT_VARIABLE) == null) {
            throw new IllegalArgumentException("SHELLY_PROVIDER is azure-openai but AZURE_OPENAI_ENDPOINT is not set "
                    + "(e.g. https://<resource>.openai.azure.com)");
        }
        if (provider == Provider.OPENAI_COMPATIBLE && value(env, "OPENAI_BASE_URL") == null) {
            throw new IllegalArgumentException("SHELLY_PROVIDER is openai-compatible but OPENAI_BASE_URL is not set "
                    + "(e.g. http://localhost:11434/v1 for Ollama)");
        }
    }

    private static String value(Map<String, String> env, String name) {
        if (name == null) {
            return null;
        }
        String v = env.get(name);
        return v == null || v.isBlank() ? null : v.strip();
    }

    /**
     * The chosen provider.
     *
     * @return the provider; {@link Provider#SCRIPTED} when no real one is configured
     */
    public Provider provider() {
        return provider;
    }

    /**
     * Whether the examples run against a scripted model rather than a real one.
     *
     * @return true without a key or base URL in the environment
     */
    public boolean scripted() {
        return provider == Provider.SCRIPTED;
    }

    /**
     * The variables the model was chosen from, for a program's child processes to choose the same.
     *
     * @return the variables
     */
    Map<String, String> environment() {
        return environment;
    }

    /**
     * The model's name: {@code SHELLY_MODEL}, or the provider's default.
     *
     * @return the model; {@code scripted} for the scripted model
     */
    public String model() {
        return model;
    }

    /**
     * The base URL requests go to: the provider's base URL variable, or its default.
     *
     * @return the URL, or empty for the scripted model
     */
    public Optional<String> baseUrl() {
        return Optional.ofNullable(baseUrl);
    }

    /**
     * One line saying which model is used (never the key), for the start of a run's output.
     *
     * @return e.g. {@code [model: openai-compatible llama3.2 at http://localhost:11434/v1]}, or
     *     {@link #SCRIPTED_BANNER}
     */
    public String banner() {
        if (scripted()) {
            return SCRIPTED_BANNER;
        }
        StringBuilder line = new StringBuilder("[model: ").append(describe());
        for (ExampleModels f : fallbacks) {
            line.append("; fallback: ").append(f.describe());
        }
        return line.append(']').toString();
    }

    /**
     * The provider, model and base URL in a few words, for messages.
     *
     * @return e.g. {@code anthropic claude-sonnet-4-5 at https://api.anthropic.com}
     */
    public String describe() {
        return scripted() ? "the scripted model" : provider.kind + " " + model + " at " + baseUrl;
    }

    /**
     * Builds a completer for the chosen provider and model, with the key and base URL from the
     * environment given to {@link #select}, the providers' default retries, and usage recorded.
     *
     * @param retries told about each retry (a rate limit, a dropped connection), e.g. to show it
     * @param usage records the usage of every reply, or null
     * @return the completer; safe to share among agents and threads
     * @throws IllegalStateException for the scripted model, which has no provider to open
     */
    public Completer open(RetryListener retries, UsageTracker usage) {
        return open(retries, FallbackListener.NONE, usage);
    }

    /**
     * Builds the completer as {@link #open(RetryListener, UsageTracker)} does and, when other
     * providers' variables are set too, puts them behind it as its fallbacks, in order.
     *
     * @param retries told about each retry
     * @param switches told each time a request moves to a fallback provider
     * @param usage records the usage of every reply (of whichever provider answered), or null
     * @return the completer
     * @throws IllegalStateException for the scripted model
     */
    public Completer open(RetryListener retries, FallbackListener switches, UsageTracker usage) {
        if (fallbacks.isEmpty()) {
            return openOne(retries, usage, RetryPolicy.defaults());
        }
        // A provider with a fallback after it does not wait out a long rate limit.
        RetryPolicy patient = RetryPolicy.defaults().withMaxRetryAfter(FallbackCompleter.DEFAULT_RATE_LIMIT_WAIT);
        FallbackCompleter.Builder chain = FallbackCompleter.builder().listener(switches)
                .provider(provider.kind, openOne(retries, usage, patient));
        for (int i = 0; i < fallbacks.size(); i++) {
            ExampleModels f = fallbacks.get(i);
            boolean last = i == fallbacks.size() - 1;
            chain.provider(f.provider.kind, f.openOne(retries, usage, last ? RetryPolicy.defaults() : patient));
        }
        return chain.build();
    }

    /**
     * The providers asked, in order, when the chosen one cannot answer.
     *
     * @return the fallbacks; empty when no other provider is set or {@code SHELLY_FALLBACK=off}
     */
    public List<ExampleModels> fallbacks() {
        return fallbacks;
    }

    private Completer openOne(RetryListener retries, UsageTracker usage, RetryPolicy policy) {
        ProviderBuilder<?> builder = switch (provider) {
            case AZURE_OPENAI -> AzureOpenAiCompleter.builder();
            case ANTHROPIC -> AnthropicCompleter.builder();
            case OPENAI -> OpenAiCompleter.builder();
            case GROK -> GrokCompleter.builder();
            case GEMINI -> GeminiCompleter.builder();
            case OPENAI_COMPATIBLE -> OpenAiCompleter.compatible().baseUrl(baseUrl);
            case SCRIPTED -> throw new IllegalStateException("the scripted model has no provider to open; "
                    + "set AZURE_OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENAI_API_KEY, XAI_API_KEY, GEMINI_API_KEY or "
                    + "OPENAI_BASE_URL");
        };
        return builder.environment(environment::get).model(model).retry(policy).retryListener(retries).usageTracker(usage)
                .build();
    }

    @Override
    public String toString() {
        return "ExampleModels[" + describe() + "]";
    }
}
