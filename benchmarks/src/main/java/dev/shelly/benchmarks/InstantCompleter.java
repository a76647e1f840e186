package dev.shelly.benchmarks;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.Usage;

/**
 * A model that answers at once: a tool call when the chat does not end with tool results, the
 * final answer when it does. Its replies are built once, so a benchmark measures the agent,
 * not the model.
 */
final class InstantCompleter implements Completer {
    private final ModelResponse call;
    private final ModelResponse answer;

    InstantCompleter(String tool, String arguments) {
        this.call = new ModelResponse(Message.of("model", Role.ASSISTANT, new ToolCall("call_1", tool, arguments)),
                Usage.of(120, 12), StopReason.TOOL_USE, null, null, null, null);
        this.answer = new ModelResponse(Message.text("model", Role.ASSISTANT, "The answer is 42."),
                Usage.of(140, 8), StopReason.END_TURN, null, null, null, null);
    }

    @Override
    public ModelResponse complete(ModelRequest request) {
        Message last = request.last().orElseThrow();
        return last.role() == Role.TOOL ? answer : call;
    }
}
