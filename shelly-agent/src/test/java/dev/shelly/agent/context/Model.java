package dev.shelly.agent.context;

import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.Usage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A model for these tests: answers summaries with "summary N" and everything else with what the
 * script says for the agent's n-th call; records every request and checks each is valid for
 * both provider formats.
 */
class Model implements Completer {
    final List<ModelRequest> calls = new CopyOnWriteArrayList<>();
    final List<ModelRequest> summaries = new CopyOnWriteArrayList<>();
    private final Function<Integer, Message> script;
    private final Usage usage;
    private final String model;

    Model(Function<Integer, Message> script) {
        this(script, Usage.ZERO, null);
    }

    Model(Function<Integer, Message> script, Usage usage, String model) {
        this.script = script;
        this.usage = usage;
        this.model = model;
    }

    @Override
    public ModelResponse complete(ModelRequest request) {
        if (request.tools().isEmpty() && request.messages().size() == 2
                && request.messages().getFirst().text().startsWith("You compress conversations")) {
            summaries.add(request);
            return new ModelResponse(Message.text("summarizer", Role.ASSISTANT, "summary " + summaries.size()), usage, null,
                    null, model, null, null);
        }
        checkValid(request.messages());
        calls.add(request);
        return new ModelResponse(script.apply(calls.size()), usage, null, null, model, null, null);
    }

    /** A reply calling one tool. */
    static Message call(String id, String tool, String arguments) {
        return Message.of("model", Role.ASSISTANT, new ToolCall(id, tool, arguments));
    }

    static Message answer(String text) {
        return Message.text("model", Role.ASSISTANT, text);
    }

    /**
     * What both provider formats need of a conversation: a system prompt first, then a user
     * message; every tool call answered in the very next message, by a tool message holding
     * exactly its calls' results; no tool message anywhere else.
     */
    static void checkValid(List<Message> messages) {
        if (messages.isEmpty() || messages.getFirst().role() != Role.SYSTEM) {
            throw new AssertionError("a request must open with the system prompt: " + messages);
        }
        if (messages.size() > 1 && messages.get(1).role() != Role.USER) {
            throw new AssertionError("the first message after the prompt must be a user message: " + messages.get(1));
        }
        for (int i = 1; i < messages.size(); i++) {
            Message m = messages.get(i);
            if (m.role() == Role.SYSTEM) {
                throw new AssertionError("a second system message at " + i);
            }
            if (m.role() == Role.TOOL) {
                Message before = messages.get(i - 1);
                Set<String> calls = new HashSet<>();
                for (ToolCall c : before.toolCalls()) {
                    calls.add(c.id());
                }
                Set<String> results = new HashSet<>();
                for (ToolResult r : m.toolResults()) {
                    results.add(r.toolCallId());
                }
                if (before.role() != Role.ASSISTANT || !calls.equals(results)) {
                    throw new AssertionError("tool message " + i + " answers " + results + " but the message before called "
                            + calls);
                }
            } else if (m.hasToolCalls()) {
                if (i + 1 >= messages.size() || messages.get(i + 1).role() != Role.TOOL) {
                    throw new AssertionError("the tool calls of message " + i + " have no results after them");
                }
            }
        }
    }

    static String text(Message m) {
        List<String> texts = new ArrayList<>();
        for (Part p : m.parts()) {
            if (p instanceof Text t) {
                texts.add(t.text());
            }
        }
        return String.join("", texts);
    }
}
