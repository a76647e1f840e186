package dev.shelly.modeladapter;

import dev.shelly.modeladapter.RetryingCompleter.Sleeper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CancellationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks providers in order and answers with the first that can: when one is down, out of quota or
 * rate-limited for longer than {@link Builder#rateLimitWait(Duration) the wait allowed}, the
 * request goes to the next.
 *
 * <pre>{@code
 * Completer model = FallbackCompleter.builder()
 *         .provider("anthropic", anthropic)
 *         .provider("openai", openai)
 *         .listener(e -> metrics.count(e.from(), e.to()))
 *         .build();
 * }</pre>
 *
 * <p>What moves a request on is a failure another provider could fix
 * ({@link #fallsBack(ModelException)}): overloaded, server error, rate-limited, quota exhausted,
 * timeout, connection failure, authentication and permission. An invalid request, a context
 * overflow, a content filter's refusal, an unreadable reply and a cancellation are the caller's to
 * see and are thrown at once. A provider reached as a fallback that refuses the request before
 * sending it (an option it cannot map, such as another provider's reasoning setting) is passed
 * over. When every provider failed, the last failure another provider could have fixed is thrown.
 *
 * <p>Each provider has a {@link CircuitBreaker}: after consecutive failures it is skipped for a
 * cool-down, then one probe request decides. Each switch is logged at WARN, naming both
 * providers and the kind of failure (never a key or a prompt), and told to the
 * {@link FallbackListener}. The response is the answering provider's own, with its usage, model
 * and provider name, so usage and cost are counted on the provider that answered.
 *
 * <p>A streamed request moves on only while no content delta has reached the listener, as
 * {@link RetryingCompleter} retries only then; after that the failure is thrown. Interruption
 * stops the chain: a {@link CancellationException} is thrown and no further provider is asked.
 */
public final class FallbackCompleter implements Completer {
    private static final Logger LOG = LoggerFactory.getLogger(FallbackCompleter.class);

    /** How long, by default, a rate-limited provider is waited for before the next is asked. */
    public static final Duration DEFAULT_RATE_LIMIT_WAIT = Duration.ofSeconds(5);

    private record Entry(String name, Completer completer, CircuitBreaker breaker) {}

    private final List<Entry> entries;
    private final Duration rateLimitWait;
    private final FallbackListener listener;
    private final Sleeper sleeper;

    private FallbackCompleter(Builder b) {
        this.entries = List.copyOf(b.entries);
        this.rateLimitWait = b.rateLimitWait;
        this.listener = b.listener;
        this.sleeper = b.sleeper;
    }

    /**
     * Providers in order, each named by its {@link Completer#target()} (or its position), each
     * with a {@link CircuitBreaker#defaults() default circuit breaker}.
     *
     * @param primary asked first
     * @param secondary asked when the primary cannot answer
     * @param more asked next, in order
     * @return the fallback completer
     */
    public static FallbackCompleter of(Completer primary, Completer secondary, Completer... more) {
        List<Completer> all = new ArrayList<>();
        all.add(primary);
        all.add(secondary);
        all.addAll(List.of(more));
        Builder b = builder();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < all.size(); i++) {
            Completer c = all.get(i);
            String name = c == null ? null : c.target().provider();
            if (name == null || !names.add(name)) {
                name = "completer " + (i + 1);
            }
            b.provider(name, c);
        }
        return b.build();
    }

    /**
     * Starts a fallback completer.
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Whether another provider could answer where this failure happened: the provider is
     * overloaded, failing, rate-limited, out of quota, slow, unreachable or refuses the key.
     *
     * @param failure the failure
     * @return true when the request should move to the next provider
     */
    public static boolean fallsBack(ModelException failure) {
        return switch (failure.kind()) {
            case OVERLOADED, SERVER, RATE_LIMITED, QUOTA_EXCEEDED, TIMEOUT, NETWORK, AUTHENTICATION, PERMISSION -> true;
            case INVALID_REQUEST, CONTEXT_LENGTH_EXCEEDED, CONTENT_FILTER, NOT_FOUND, INVALID_RESPONSE -> false;
        };
    }

    /**
     * The providers' names, in the order they are asked.
     *
     * @return the names
     */
    public List<String> providers() {
        return entries.stream().map(Entry::name).toList();
    }

    @Override
    public ModelTarget target() {
        return entries.getFirst().completer().target();
    }

    @Override
    public ModelResponse complete(ModelRequest request) {
        return ask(request, new DeliveredContent(StreamListener.NONE), false);
    }

    @Override
    public ModelResponse complete(ModelRequest request, StreamListener streamListener) {
        if (streamListener == null) {
            throw new IllegalArgumentException("FallbackCompleter.complete listener must not be null");
        }
        return ask(request, new DeliveredContent(streamListener), true);
    }

    private ModelResponse ask(ModelRequest request, DeliveredContent content, boolean streamed) {
        ModelException last = null;
        ModelException refused = null;
        for (int i = 0; i < entries.size(); i++) {
            Entry entry = entries.get(i);
            if (!entry.breaker().tryAcquire()) {
                LOG.atDebug().log(() -> "skipping provider '" + entry.name() + "': its circuit is open");
                moveOn(i, null);
                continue;
            }
            try {
                ModelResponse response = askOne(entry, request, content, streamed);
                entry.breaker().onSuccess();
                return response;
            } catch (ModelException failure) {
                // Once part of a streamed reply is out, the request cannot move to another provider.
                boolean movable = !content.delivered();
                if (fallsBack(failure)) {
                    recordFailure(entry, failure);
                    if (!movable) {
                        throw failure;
                    }
                    last = failure;
                    moveOn(i, failure);
                    continue;
                }
                entry.breaker().release();
                if (i > 0 && movable && refusedBeforeSending(failure)) {
                    // A fallback that cannot take the request's options (Reasoning.budget is
                    // Anthropic's, say) is passed over; the caller hears the failure that started
                    // the fallback, not the fallback's refusal.
                    refused = failure;
                    moveOn(i, failure);
                    continue;
                }
                throw failure;
            } catch (RuntimeException | Error e) {
                entry.breaker().release();
                throw e;
            }
        }
        if (last != null) {
            throw last;
        }
        if (refused != null) {
            throw refused;
        }
        throw allOpen();
    }

    /** An option the provider cannot map, refused before any HTTP: no status. */
    private static boolean refusedBeforeSending(ModelException failure) {
        return failure.kind() == ModelException.Kind.INVALID_REQUEST && failure.status() == 0;
    }

    /** One provider, waiting once for a rate limit that asks for no longer than the wait allowed. */
    private ModelResponse askOne(Entry entry, ModelRequest request, DeliveredContent content, boolean streamed) {
        try {
            return streamed ? entry.completer().complete(request, content.listener()) : entry.completer().complete(request);
        } catch (ModelException failure) {
            Duration wait = failure.kind() == ModelException.Kind.RATE_LIMITED ? failure.retryAfter().orElse(null) : null;
            if (wait == null || wait.compareTo(rateLimitWait) > 0 || content.delivered()) {
                throw failure;
            }
            LOG.atInfo().log(() -> "provider '" + entry.name() + "' is rate limited; waiting "
                    + wait.toMillis() + " ms as it asked before asking it again");
            try {
                sleeper.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                CancellationException cancelled = new CancellationException(
                        "completion cancelled while waiting for a rate limit: " + failure.getMessage());
                cancelled.initCause(failure);
                throw cancelled;
            }
            return streamed ? entry.completer().complete(request, content.listener()) : entry.completer().complete(request);
        }
    }

    private void recordFailure(Entry entry, ModelException failure) {
        CircuitBreaker breaker = entry.breaker();
        if (breaker.onFailure()) {
            LOG.atWarn().log(() -> "provider '" + entry.name() + "' is skipped for "
                    + breaker.coolDown().toMillis() + " ms after " + kindOf(failure) + ": its circuit is open after "
                    + breaker.failureThreshold() + " consecutive failures");
        }
    }

    private void moveOn(int from, ModelException failure) {
        if (from + 1 >= entries.size()) {
            return;
        }
        FallbackEvent event = new FallbackEvent(entries.get(from).name(), entries.get(from + 1).name(), failure);
        if (failure != null) {
            LOG.atWarn().log(() -> "falling back from provider '" + event.from() + "' to '" + event.to()
                    + "' after " + kindOf(failure) + ": " + failure.getMessage());
        } else {
            LOG.atWarn().log(() -> "falling back from provider '" + event.from() + "' to '" + event.to()
                    + "': the circuit of '" + event.from() + "' is open");
        }
        listener.onFallback(event);
    }

    private ModelException allOpen() {
        Duration soonest = entries.stream().map(e -> e.breaker().remaining()).min(Duration::compareTo).orElseThrow();
        return ModelException.builder(ModelException.Kind.OVERLOADED)
                .providerMessage("every provider is skipped after consecutive failures (circuit open): "
                        + String.join(", ", providers()) + "; the next probe may go in " + soonest.toMillis() + " ms")
                .retryAfter(soonest)
                .build();
    }

    private static String kindOf(ModelException failure) {
        return failure.kind().name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    @Override
    public String toString() {
        return "FallbackCompleter" + providers();
    }

    /** Configures a {@link FallbackCompleter}. */
    public static final class Builder {
        private final List<Entry> entries = new ArrayList<>();
        private Duration rateLimitWait = DEFAULT_RATE_LIMIT_WAIT;
        private FallbackListener listener = FallbackListener.NONE;
        private Sleeper sleeper = Sleeper.SYSTEM;

        private Builder() {}

        /**
         * Adds the next provider to ask, with a {@link CircuitBreaker#defaults() default breaker}.
         *
         * @param name its name in logs and events, unique in this completer
         * @param completer the provider
         * @return this builder
         */
        public Builder provider(String name, Completer completer) {
            return provider(name, completer, CircuitBreaker.defaults());
        }

        /**
         * Adds the next provider to ask, with its breaker; pass the same breaker wherever the
         * same provider is named, so that every chain skips it together.
         *
         * @param name its name in logs and events, unique in this completer
         * @param completer the provider
         * @param breaker its circuit breaker
         * @return this builder
         */
        public Builder provider(String name, Completer completer, CircuitBreaker breaker) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("FallbackCompleter provider name must not be null or blank");
            }
            if (completer == null) {
                throw new IllegalArgumentException("FallbackCompleter provider '" + name + "' must not be null");
            }
            if (breaker == null) {
                throw new IllegalArgumentException("FallbackCompleter breaker of '" + name + "' must not be null");
            }
            for (Entry e : entries) {
                if (e.name().equals(name)) {
                    throw new IllegalArgumentException("FallbackCompleter provider '" + name + "' is named twice");
                }
            }
            entries.add(new Entry(name, completer, breaker));
            return this;
        }

        /**
         * Sets how long a rate-limited provider that says when to come back is waited for, once,
         * before the next provider is asked; a longer or unstated wait moves on at once.
         *
         * @param value the wait; zero never waits; default {@link #DEFAULT_RATE_LIMIT_WAIT}
         * @return this builder
         */
        public Builder rateLimitWait(Duration value) {
            if (value == null || value.isNegative()) {
                throw new IllegalArgumentException("FallbackCompleter.rateLimitWait must not be null or negative, was "
                        + value);
            }
            this.rateLimitWait = value;
            return this;
        }

        /**
         * Sets the listener told about each switch.
         *
         * @param value the listener
         * @return this builder
         */
        public Builder listener(FallbackListener value) {
            if (value == null) {
                throw new IllegalArgumentException("FallbackCompleter.listener must not be null");
            }
            this.listener = value;
            return this;
        }

        /**
         * Sets how to wait for a rate limit; tests pass one that does not really sleep.
         *
         * @param value the sleeper
         * @return this builder
         */
        public Builder sleeper(Sleeper value) {
            if (value == null) {
                throw new IllegalArgumentException("FallbackCompleter.sleeper must not be null");
            }
            this.sleeper = value;
            return this;
        }

        /**
         * Builds the completer.
         *
         * @return the fallback completer
         * @throws IllegalArgumentException when fewer than two providers were added
         */
        public FallbackCompleter build() {
            if (entries.size() < 2) {
                throw new IllegalArgumentException("FallbackCompleter needs at least two providers, got " + entries.size());
            }
            return new FallbackCompleter(this);
        }
    }

    /**
     * A {@link FallbackCompleter} moved a request from one provider to the next.
     *
     * @param from the provider the request left
     * @param to the provider it goes to next
     * @param failure why it left: the provider's failure, or null when {@code from} was skipped
     *     because its circuit is open
     */
    public record FallbackEvent(String from, String to, ModelException failure) {

        /** Checks the names. */
        public FallbackEvent {
            if (from == null || to == null) {
                throw new IllegalArgumentException("FallbackEvent.from and .to must not be null");
            }
        }

        /**
         * Why the request moved, as a word for logs and telemetry.
         *
         * @return the failure's kind in lower case ({@code rate_limited}), or {@code circuit_open}
         */
        public String reason() {
            return failure == null ? "circuit_open" : failure.kind().name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * Observes a {@link FallbackCompleter}'s switches: called once per switch, on the thread that
     * called the completer, before the next provider is asked.
     */
    @FunctionalInterface
    public interface FallbackListener {

        /** A listener that ignores switches. */
        FallbackListener NONE = event -> {};

        /**
         * Called when a request moves to the next provider.
         *
         * @param event the two providers and why
         */
        void onFallback(FallbackEvent event);
    }
}
