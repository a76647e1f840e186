package dev.shelly.engine;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ReplyMetadata;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.modeladapter.UsageTracker;
import java.util.List;

/**
 * Records the usage on every reply of a completer given in code, so the engine's tracker counts
 * it like the providers it builds itself (those record into the tracker on their own).
 */
final class CountingCompleter implements Completer {
    private final Completer delegate;
    private final UsageTracker usage;

    CountingCompleter(Completer delegate, UsageTracker usage) {
        this.delegate = delegate;
        this.usage = usage;
    }

    @Override
    public Message complete(Chat chat, List<ToolDefinition> tools) {
        return counted(delegate.complete(chat, tools));
    }

    @Override
    public Message complete(Chat chat, List<ToolDefinition> tools, StreamListener listener) {
        return counted(delegate.complete(chat, tools, listener));
    }

    private Message counted(Message reply) {
        if (reply != null) {
            ReplyMetadata.usage(reply).ifPresent(usage::add);
        }
        return reply;
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
