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
    private final EngineConfig config;
    private final Map<String, Completer> built;
    private final FallbackListener listener;
    private final Map<String, CircuitBreaker> breakers = new LinkedHashMap<>();

    /**
     * The chains of a configuration.
     *
     * @param config the checked configuration (no unknown fallback, no cycle)
     * @param built each provider's own completer, by name
     * @param listener told about every switch
     */
    ProviderChains(EngineConfig config, Map<String, Completer> built, FallbackListener listener) {
        this.config = config;
        this.built = built;
        this.listener = listener;
        config.providers().forEach(p -> breakers.put(p.name(), p.circuitBreaker().breaker()));
    }

    /**
     * The completers agents use, by provider name.
     *
     * @return the completers, a chained one for each provider with a fallback
     */
    Map<String, Completer> byProvider() {
        Map<String, Completer> chained = new LinkedHashMap<>();
        for (ProviderConfig p : config.providers()) {
            chained.put(p.name(), chain(p, built.get(p.name()), breakers.get(p.name())));
        }
        return chained;
    }

    /**
     * A provider asked for another model (an agent's own {@code model}), in front of the
     * provider's fallbacks, with a circuit breaker of its own (another model may be up while the
     * provider's is down).
     *
     * @param p the provider
     * @param own its completer for that model
     * @return the completer, chained when the provider has a fallback
     */
    Completer withModel(ProviderConfig p, Completer own) {
        return chain(p, own, p.circuitBreaker().breaker());
    }

    private Completer chain(ProviderConfig p, Completer first, CircuitBreaker breaker) {
        List<String> chain = config.fallbackChain(p.name());
        if (chain.size() == 1) {
            return first;
        }
        FallbackCompleter.Builder b = FallbackCompleter.builder().listener(listener).rateLimitWait(p.fallbackWait());
        b.provider(p.name(), first, breaker);
        chain.subList(1, chain.size()).forEach(name -> b.provider(name, built.get(name), breakers.get(name)));
        return b.build();
    }
}
