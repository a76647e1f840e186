package dev.shelly.provider.spi;

import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTarget;
import dev.shelly.modeladapter.StreamListener;

/**
 * The completer every HTTP provider is: its {@link WireFormat} spoken over HTTP (the shared
 * connection pool, timeouts, authentication, headers), its transient failures retried as the
 * provider's {@link dev.shelly.modeladapter.RetryPolicy} says, the usage of every reply recorded
 * in its {@link dev.shelly.modeladapter.UsageTracker}. {@link ProviderBuilder#assemble} makes
 * one; a provider's public completer class extends this one and adds nothing but its builder.
 *
 * <p>Every failure it throws is redacted: whatever the provider sent (an error body, an error
 * event after HTTP 200, an invalid reply) reaches the message without the API key or the
 * values of the extra headers. A context overflow names the model it asked for and, where the
 * provider's message says them, the request's size and the model's context window
 * ({@link ModelException#requestTokens()}, {@link ModelException#contextWindow()}).
 *
 * <p>{@link #toString()} describes the provider (name, model, masked base URL), never its key.
 */
public class HttpCompleter implements Completer {
    private final Completer calls;
    private final String description;

    HttpCompleter(Completer calls, String description) {
        this.calls = calls;
        this.description = description;
    }

    /**
     * A provider's completer around what {@link ProviderBuilder#assemble} made.
     *
     * @param assembled the assembled completer
     */
    protected HttpCompleter(HttpCompleter assembled) {
        this(assembled.calls, assembled.description);
    }

    /**
     * The provider (by its own name, whatever the user calls it) and the model the requests go
     * to.
     *
     * @return the target
     */
    @Override
    public final ModelTarget target() {
        return calls.target();
    }

    @Override
    public final ModelResponse complete(ModelRequest request) {
        return calls.complete(request);
    }

    @Override
    public final ModelResponse complete(ModelRequest request, StreamListener listener) {
        return calls.complete(request, listener);
    }

    @Override
    public final String toString() {
        return description;
    }
}
