package dev.shelly.benchmarks;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ReplyMetadata;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.Usage;
import java.util.List;

/**
 * A model that answers at once: a tool call when the chat does not end with tool results, the
 * final answer when it does. Its replies are built once, so a benchmark measures the agent,
 * not the model.
 */
final class InstantCompleter implements Completer {
    private final Message call;
    private final Message answer;

    InstantCompleter(String tool, String arguments) {
        this.call = Message.of("model", Role.ASSISTANT, new ToolCall("call_1", tool, arguments))
                .withMeta(ReplyMetadata.USAGE, Usage.of(120, 12))
                .withMeta(ReplyMetadata.STOP_REASON, StopReason.TOOL_USE);
        this.answer = Message.text("model", Role.ASSISTANT, "The answer is 42.")
                .withMeta(ReplyMetadata.USAGE, Usage.of(140, 8))
                .withMeta(ReplyMetadata.STOP_REASON, StopReason.END_TURN);
    }

    @Override
    public Message complete(Chat chat, List<ToolDefinition> tools) {
        Message last = chat.last().orElseThrow();
        return last.role() == Role.TOOL ? answer : call;
    }
}
