package dev.shelly.benchmarks;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;

/** A lead's model: one {@code delegate} call with the given tasks, then a final answer. */
final class DelegatingCompleter implements Completer {
    private final String arguments;
    private final ModelResponse delegate;
    private final ModelResponse answer = ModelResponse.of(Message.text("model", Role.ASSISTANT, "all parts done"));

    DelegatingCompleter(int tasks) {
        StringBuilder json = new StringBuilder(tasks * 80).append("{\"tasks\":[");
        for (int i = 0; i < tasks; i++) {
            json.append(i == 0 ? "" : ",")
                    .append("{\"agent\":\"worker\",\"task\":\"Work on part ").append(i)
                    .append("\",\"context\":\"The parts are independent.\"}");
        }
        this.arguments = json.append("]}").toString();
        this.delegate = ModelResponse.of(Message.of("model", Role.ASSISTANT, new ToolCall("call_1", "delegate", arguments)));
    }

    /** The arguments of the delegate call: {@code {"tasks":[...]}}. */
    String arguments() {
        return arguments;
    }

    @Override
    public ModelResponse complete(ModelRequest request) {
        return request.last().orElseThrow().role() == Role.TOOL ? answer : delegate;
    }

    /** Fails loudly when the delegation did not succeed, so a broken run is never measured as a fast one. */
    static void check(Chat chat) {
        for (Message m : chat.messages()) {
            if (!m.toolResults().isEmpty() && m.toolResults().getFirst().isError()) {
                throw new IllegalStateException("delegation failed: " + m.toolResults().getFirst().text());
            }
        }
    }
}
