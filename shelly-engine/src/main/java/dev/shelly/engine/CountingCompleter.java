package dev.shelly.engine;

import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.modeladapter.Usage;
import dev.shelly.modeladapter.UsageTracker;

/**
 * Records the usage of every response into the engine's tracker: around each provider a
 * {@code CompleterFactory} builds and each completer given in code alike, so that no provider
 * kind needs to know the tracker.
 */
final class CountingCompleter implements Completer {
    private final Completer delegate;
    private final UsageTracker usage;

    CountingCompleter(Completer delegate, UsageTracker usage) {
        this.delegate = delegate;
        this.usage = usage;
    }

    @Override
    public ModelResponse complete(ModelRequest request) {
        return counted(delegate.complete(request));
    }

    @Override
    public ModelResponse complete(ModelRequest request, StreamListener listener) {
        return counted(delegate.complete(request, listener));
    }

    private ModelResponse counted(ModelResponse response) {
        if (response != null && !response.usage().equals(Usage.ZERO)) {
            usage.add(response.usage());
        }
        return response;
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
