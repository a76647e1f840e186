package dev.shelly.modeladapter.http;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ReplyMetadata;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.modeladapter.UsageTracker;
import java.util.List;

/**
 * A {@link Completer} that speaks a {@link WireFormat} over an {@link HttpModelClient}, and
 * records the usage of every reply, streamed or not, in a {@link UsageTracker}.
 *
 * <p>Every failure it throws has passed through {@link HttpModelClient#redact}: whatever the
 * provider sent (an error body, an error event after HTTP 200, an invalid reply) reaches the
 * message without the API key or the values of the extra headers.
 *
 * <p>It does not retry; wrap it in a {@link dev.shelly.modeladapter.RetryingCompleter} (the
 * providers do).
 */
public final class HttpCompleter implements Completer {
    private final HttpModelClient client;
    private final WireFormat format;
    private final UsageTracker usage;

    /**
     * Joins a client and a wire format.
     *
     * @param client the HTTP client of the provider's endpoint
     * @param format the provider's wire format
     * @param usage where to record each reply's usage, or null to record nowhere
     */
    public HttpCompleter(HttpModelClient client, WireFormat format, UsageTracker usage) {
        if (client == null || format == null) {
            throw new IllegalArgumentException("HttpCompleter client and format must not be null");
        }
        this.client = client;
        this.format = format;
        this.usage = usage;
    }

    @Override
    public Message complete(Chat chat, List<ToolDefinition> tools) {
        checkArguments(chat, tools);
        byte[] request = format.request(chat, tools, false);
        try {
            byte[] body = client.post(format.path(), request, format::error);
            return recorded(format.reply(body));
        } catch (ModelException e) {
            throw client.redact(e);
        }
    }

    @Override
    public Message complete(Chat chat, List<ToolDefinition> tools, StreamListener listener) {
        checkArguments(chat, tools);
        if (listener == null) {
            throw new IllegalArgumentException(format.provider() + ": stream listener must not be null");
        }
        StreamDecoder decoder = format.decoder(listener);
        byte[] request = format.request(chat, tools, true);
        try {
            byte[] whole = client.stream(format.path(), request, format::error, decoder::isEnd, decoder::onEvent);
            if (whole != null) {
                Message reply = format.reply(whole);
                replay(reply, listener);
                return recorded(reply);
            }
            return recorded(decoder.finish());
        } catch (ModelException e) {
            throw client.redact(e);
        }
    }

    /** Delivers a reply that arrived whole as the deltas a stream would have given. */
    private static void replay(Message reply, StreamListener listener) {
        int index = 0;
        for (Part part : reply.parts()) {
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
        ReplyMetadata.usage(reply).ifPresent(u -> listener.onDelta(new Delta.UsageDelta(u)));
    }

    private void checkArguments(Chat chat, List<ToolDefinition> tools) {
        if (chat == null || tools == null) {
            throw new IllegalArgumentException(format.provider() + ": chat and tools must not be null");
        }
    }

    private Message recorded(Message reply) {
        if (usage != null) {
            ReplyMetadata.usage(reply).ifPresent(usage::add);
        }
        return reply;
    }

    @Override
    public String toString() {
        return "HttpCompleter[" + client + "]";
    }
}
