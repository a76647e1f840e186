package dev.shelly.engine;

import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.RateLimit;
import dev.shelly.modeladapter.RateLimitedCompleter;
import dev.shelly.modeladapter.RateLimitedCompleter.RateLimiter;
import dev.shelly.modeladapter.RetryingCompleter.RetryListener;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.modeladapter.RetryingCompleter;
import dev.shelly.modeladapter.UsageTracker;
import dev.shelly.modeladapter.spi.CompleterFactory;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import dev.shelly.modeladapter.spi.ProviderSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The provider kinds on the class path: every {@link CompleterFactory} that {@link ServiceLoader}
 * finds, by its kind. Builds each configured provider through the factory of its kind, then
 * wraps it in what the engine applies to every provider alike: usage counting, retries and the
 * rate limit.
 *
 * <p>A setting the factory refuses comes back as an {@link InvalidSettingException} naming its
 * field, reported at that field's path and line; a field the factory never read is reported as
 * unknown. Nothing here knows any kind by name.
 */
final class ProviderKinds {
    private final Map<String, List<CompleterFactory>> byKind;

    private ProviderKinds(Map<String, List<CompleterFactory>> byKind) {
        this.byKind = byKind;
    }

    /** The factories visible to this class's class loader. */
    static ProviderKinds load() {
        Map<String, List<CompleterFactory>> byKind = new TreeMap<>();
        for (CompleterFactory f : ServiceLoader.load(CompleterFactory.class, Engine.class.getClassLoader())) {
            byKind.computeIfAbsent(f.kind().strip().toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(f);
        }
        return new ProviderKinds(byKind);
    }

    /**
     * Builds the completer of the provider at {@code index}, asking for its model or for
     * {@code model}; {@code retries} hears its retries.
     *
     * @throws ConfigException at the field at fault
     */
    Completer build(EngineConfig config, int index, String model, Function<String, String> env, UsageTracker usage,
            Function<RateLimit, RateLimiter> limiters, RetryListener retries) {
        ProviderConfig p = config.providers().get(index).withModel(model);
        String at = "providers[" + index + "]";
        CompleterFactory factory = factoryOf(config, p, at);
        ProviderSettings settings = ProviderSettings.of(p.name(), p.factorySettings(), env::apply);
        Completer completer;
        try {
            completer = factory.create(settings);
        } catch (InvalidSettingException e) {
            throw located(config.errorAt(field(at, e.field()), e.reason()), e);
        } catch (RuntimeException e) {
            throw located(config.errorAt(at, "provider '" + p.name() + "' (kind " + p.kind() + ") cannot be built: "
                    + e.getMessage()), e);
        }
        if (completer == null) {
            throw config.errorAt(at + ".kind", factory.getClass().getName() + " built no completer for provider '"
                    + p.name() + "'");
        }
        Set<String> unread = settings.unread();
        if (!unread.isEmpty()) {
            String first = unread.iterator().next();
            Set<String> known = new TreeSet<>(settings.read());
            known.addAll(ProviderConfig.ENGINE_FIELDS);
            known.removeIf(f -> f.contains("."));
            throw config.errorAt(field(at, first), "unknown field '" + first + "' for provider kind '" + p.kind()
                    + "'; expected one of " + String.join(", ", known));
        }
        Completer wrapped = new CountingCompleter(completer, usage);
        if (p.retry().maxAttempts() > 1) {
            RetryPolicy policy = p.retry();
            if (!p.fallback().isEmpty() && p.fallbackWait().compareTo(policy.maxRetryAfter()) < 0) {
                // A provider with fallbacks does not wait out a long rate limit: its fallback answers instead.
                policy = policy.withMaxRetryAfter(p.fallbackWait());
            }
            wrapped = RetryingCompleter.builder(wrapped)
                    .policy(policy)
                    .listener(retries)
                    .build();
        }
        if (p.rateLimit() == null) {
            return wrapped;
        }
        return RateLimitedCompleter.of(wrapped, limiters.apply(p.rateLimit()));
    }

    private CompleterFactory factoryOf(EngineConfig config, ProviderConfig p, String at) {
        List<CompleterFactory> found = byKind.get(p.kind().toLowerCase(Locale.ROOT));
        if (found == null) {
            throw config.errorAt(at + ".kind", byKind.isEmpty()
                    ? "unknown provider kind '" + p.kind() + "'; no provider kinds are on the class path: add "
                            + "dev.shelly:shelly-providers, or a jar with a " + CompleterFactory.class.getName()
                    : "unknown provider kind '" + p.kind() + "'; expected one of " + String.join(", ", byKind.keySet()));
        }
        if (found.size() > 1) {
            List<String> classes = found.stream().map(f -> f.getClass().getName()).sorted().toList();
            throw config.errorAt(at + ".kind", "provider kind '" + p.kind() + "' is claimed by more than one "
                    + CompleterFactory.class.getSimpleName() + " on the class path: " + String.join(", ", classes));
        }
        return found.getFirst();
    }

    private static String field(String at, String field) {
        return field == null || field.isEmpty() ? at : at + "." + field;
    }

    private static ConfigException located(ConfigException error, Throwable cause) {
        error.initCause(cause);
        return error;
    }

    @Override
    public String toString() {
        Map<String, String> kinds = new HashMap<>();
        byKind.forEach((k, v) -> kinds.put(k, v.getFirst().getClass().getName()));
        return "ProviderKinds" + new TreeMap<>(kinds);
    }
}
