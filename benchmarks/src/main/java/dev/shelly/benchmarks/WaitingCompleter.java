package dev.shelly.benchmarks;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.Completer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;

/** A model that takes a fixed time to answer, as a remote model waits on the network. */
final class WaitingCompleter implements Completer {
    private final Duration latency;
    private final Message answer = Message.text("model", Role.ASSISTANT, "part done");

    WaitingCompleter(Duration latency) {
        this.latency = latency;
    }

    @Override
    public Message complete(Chat chat, List<ToolDefinition> tools) {
        try {
            Thread.sleep(latency);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while waiting for the model");
        }
        return answer;
    }
}
