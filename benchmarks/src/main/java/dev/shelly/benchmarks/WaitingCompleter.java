package dev.shelly.benchmarks;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import java.time.Duration;
import java.util.concurrent.CancellationException;

/** A model that takes a fixed time to answer, as a remote model waits on the network. */
final class WaitingCompleter implements Completer {
    private final Duration latency;
    private final ModelResponse answer = ModelResponse.of(Message.text("model", Role.ASSISTANT, "part done"));

    WaitingCompleter(Duration latency) {
        this.latency = latency;
    }

    @Override
    public ModelResponse complete(ModelRequest request) {
        try {
            Thread.sleep(latency);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while waiting for the model");
        }
        return answer;
    }
}
