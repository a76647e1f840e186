package dev.shelly.engine;

import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.RateLimit;
import dev.shelly.modeladapter.RateLimitedCompleter;
import dev.shelly.modeladapter.RateLimiter;
import dev.shelly.modeladapter.RetryListener;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.modeladapter.UsageTracker;
import dev.shelly.provider.spi.ProviderBuilder;
import dev.shelly.providers.Providers;
import java.util.function.Function;

/** Builds a provider's completer from its configuration. */
final class ProviderFactory {
    private ProviderFactory() {}

    static Completer build(ProviderConfig p, int index, EngineConfig config, Function<String, String> env,
            UsageTracker usage, Function<RateLimit, RateLimiter> limiters, RetryListener retries) {
        String at = "providers[" + index + "]";
        ProviderBuilder<?> b = Providers.builder(p.kind())
                .name(p.name())
                .model(p.model())
                .environment(env::apply)
                .usageTracker(usage)
                .retryListener(retries)
                .retry(RetryPolicy.defaults()
                        .withMaxAttempts(p.retry().maxAttempts())
                        .withDelays(p.retry().initialDelay(), p.retry().maxDelay()));
        if (p.baseUrl() != null) {
            b.baseUrl(p.baseUrl());
        }
        if (p.apiKey() != null) {
            b.apiKey(p.apiKey());
        }
        if (p.maxTokens() != null) {
            b.maxTokens(p.maxTokens());
        }
        if (p.temperature() != null) {
            b.temperature(p.temperature());
        }
        if (p.timeout() != null) {
            b.callTimeout(p.timeout());
        }
        Completer completer;
        try {
            b.headers(p.headers());
            completer = b.build();
        } catch (IllegalArgumentException e) {
            String message = e.getMessage() == null ? "" : e.getMessage();
            String field = message.contains("API key") ? at + ".api_key"
                    : message.contains("base URL") ? at + ".base_url"
                    : message.contains("header") ? at + ".headers" : at;
            ConfigException error = config.errorAt(field, "provider '" + p.name() + "' cannot be built: " + e.getMessage());
            error.initCause(e);
            throw error;
        }
        if (p.rateLimit() == null) {
            return completer;
        }
        Long tokens = p.rateLimit().tokensPerMinute();
        RateLimit limit = new RateLimit(p.rateLimit().requestsPerMinute(), tokens == null ? 0 : tokens);
        return RateLimitedCompleter.of(completer, limiters.apply(limit));
    }
}
