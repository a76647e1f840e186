package dev.shelly.provider.spi;

import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTarget;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.modeladapter.Usage;
import dev.shelly.modeladapter.UsageTracker;
import dev.shelly.provider.spi.internal.ByteEventDecoder;

/**
 * The call itself: a {@link WireFormat} spoken over an {@link HttpModelClient}, the usage of
 * every reply, streamed or not, recorded in a {@link UsageTracker}.
 *
 * <p>Every failure it throws has passed through {@link HttpModelClient#redact}: whatever the
 * provider sent (an error body, an error event after HTTP 200, an invalid reply) reaches the
 * message without the API key or the values of the extra headers. A context overflow names the
 * model it asked for and, where the provider's message says them, the request's size and the
 * model's context window ({@link ModelException#requestTokens()},
 * {@link ModelException#contextWindow()}).
 *
 * <p>It does not retry: {@link ProviderBuilder} wraps it in a
 * {@link dev.shelly.modeladapter.RetryingCompleter} and that in an {@link HttpCompleter}.
 */
final class WireCompleter implements Completer {
    private final HttpModelClient client;
    private final WireFormat format;
    private final UsageTracker usage;
    private final ModelTarget target;

    /**
     * Joins a client and a wire format, naming what the calls go to for telemetry.
     *
     * @param client the HTTP client of the provider's endpoint
     * @param format the provider's wire format
     * @param usage where to record each reply's usage, or null to record nowhere
     * @param target the provider (by its own name, such as {@code openai}, whatever the user calls
     *     it) and model; null for the format's provider and model
     */
    WireCompleter(HttpModelClient client, WireFormat format, UsageTracker usage, ModelTarget target) {
        if (client == null || format == null) {
            throw new IllegalArgumentException("WireCompleter client and format must not be null");
        }
        this.client = client;
        this.format = format;
        this.usage = usage;
        this.target = target != null ? target : new ModelTarget(format.provider(), format.model());
    }

    /**
     * The provider and model the requests go to.
     *
     * @return the target given to the constructor, or the format's provider and model
     */
    @Override
    public ModelTarget target() {
        return target;
    }

    @Override
    public ModelResponse complete(ModelRequest request) {
        checkRequest(request);
        try {
            byte[] body = client.post(format.path(false), format.request(request, false), format::error);
            return recorded(format.reply(body, request));
        } catch (ModelException e) {
            throw failure(e);
        }
    }

    @Override
    public ModelResponse complete(ModelRequest request, StreamListener listener) {
        checkRequest(request);
        if (listener == null) {
            throw new IllegalArgumentException(format.provider() + ": stream listener must not be null");
        }
        try {
            byte[] body = format.request(request, true);
            StreamDecoder decoder = format.decoder(request, listener);
            byte[] whole = client.stream(format.path(true), body, format::error, decoder::isEnd, decoder::onEvent,
                    decoder::completeAtClose, decoder instanceof ByteEventDecoder bytes ? bytes : null);
            if (whole != null) {
                ModelResponse response = format.reply(whole, request);
                replay(response, listener);
                return recorded(response);
            }
            return recorded(decoder.finish());
        } catch (ModelException e) {
            throw failure(e);
        }
    }

    /** A failure as thrown: a context overflow completed with the model and sizes, then redacted. */
    private ModelException failure(ModelException e) {
        return client.redact(ContextOverflow.complete(e, target.model()));
    }

    /** Delivers a reply that arrived whole as the deltas a stream would have given. */
    private static void replay(ModelResponse response, StreamListener listener) {
        int index = 0;
        for (Part part : response.message().parts()) {
            switch (part) {
                case Thinking t when !t.text().isEmpty() -> listener.onDelta(new Delta.ThinkingDelta(t.text()));
                case Text t when !t.text().isEmpty() -> listener.onDelta(new Delta.TextDelta(t.text()));
                case ToolCall c -> {
                    listener.onDelta(new Delta.ToolCallStart(index, c.id(), c.name()));
                    listener.onDelta(new Delta.ToolCallArguments(index, c.arguments()));
                    index++;
                }
                default -> { }
            }
        }
        listener.onDelta(new Delta.UsageDelta(response.usage()));
    }

    private void checkRequest(ModelRequest request) {
        if (request == null) {
            throw new IllegalArgumentException(format.provider() + ": request must not be null");
        }
    }

    private ModelResponse recorded(ModelResponse response) {
        // A reply the provider reported no usage for has Usage.ZERO: it is not counted as a reply with usage.
        if (usage != null && !response.usage().equals(Usage.ZERO)) {
            usage.add(response.usage());
        }
        return response;
    }

    @Override
    public String toString() {
        return "WireCompleter[" + client + "]";
    }
}
