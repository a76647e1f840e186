package dev.shelly.engine;

import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.CircuitBreaker;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.FallbackCompleter;
import dev.shelly.modeladapter.FallbackCompleter.FallbackListener;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Puts each provider that names a {@code fallback:} in front of its fallbacks: the provider's
 * requests go to a {@link FallbackCompleter} over its {@link EngineConfig#fallbackChain chain}.
 * Every provider has one circuit breaker, shared by every chain that names it, so a provider
 * that is down is skipped by all of them. Each provider in a chain keeps its own usage counting,
 * retries and rate limit, so a reply is counted once, on the provider that gave it.
 */
final class ProviderChains {
    private ProviderChains() {}

    /**
     * The completers agents use, by provider name.
     *
     * @param config the checked configuration (no unknown fallback, no cycle)
     * @param built each provider's own completer, by name
     * @param listener told about every switch
     * @return the completers, a chained one for each provider with a fallback
     */
    static Map<String, Completer> chain(EngineConfig config, Map<String, Completer> built, FallbackListener listener) {
        Map<String, CircuitBreaker> breakers = new LinkedHashMap<>();
        config.providers().forEach(p -> breakers.put(p.name(), p.circuitBreaker().breaker()));
        Map<String, Completer> chained = new LinkedHashMap<>();
        for (ProviderConfig p : config.providers()) {
            List<String> chain = config.fallbackChain(p.name());
            if (chain.size() == 1) {
                chained.put(p.name(), built.get(p.name()));
                continue;
            }
            FallbackCompleter.Builder b = FallbackCompleter.builder().listener(listener).rateLimitWait(p.fallbackWait());
            chain.forEach(name -> b.provider(name, built.get(name), breakers.get(name)));
            chained.put(p.name(), b.build());
        }
        return chained;
    }
}
