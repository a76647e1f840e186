package dev.shelly.modeladapter.http;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ReplyMetadata;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.modeladapter.UsageTracker;
import java.util.List;
import java.util.Optional;

/**
 * A {@link Completer} that speaks a {@link WireFormat} over an {@link HttpModelClient}, and
 * records the usage of every reply, streamed or not, in a {@link UsageTracker}.
 *
 * <p>A server that answers a streamed request with one whole JSON reply (it ignored the request
 * for a stream) gives the same message, without deltas.
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
        byte[] body = client.post(format.path(), format.request(chat, tools, false), format::error);
        return recorded(format.reply(body));
    }

    @Override
    public Message complete(Chat chat, List<ToolDefinition> tools, StreamListener listener) {
        checkArguments(chat, tools);
        if (listener == null) {
            throw new IllegalArgumentException(format.provider() + ": stream listener must not be null");
        }
        StreamDecoder decoder = format.decoder(listener);
        Optional<byte[]> whole = client.streamOrBody(format.path(), format.request(chat, tools, true), format::error,
                decoder::isEnd, decoder::onEvent);
        return recorded(whole.isPresent() ? format.reply(whole.get()) : decoder.finish());
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
