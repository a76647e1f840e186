package dev.shelly.agent.internal;

import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The text a summariser reads for some messages: one line or block per message. */
final class Transcript {
    /** Each message is cut to this many characters in what the summariser reads. */
    static final int PIECE_CHARS = 2_000;

    private Transcript() {}

    /**
     * The transcript of the messages, its start left out when it is longer than {@code maxChars}.
     *
     * @param messages the messages, in order
     * @param maxChars the most characters it may hold
     * @return the text
     */
    static String of(List<Message> messages, int maxChars) {
        StringBuilder sb = new StringBuilder();
        Map<String, String> names = new LinkedHashMap<>();
        for (Message m : messages) {
            for (Part p : m.parts()) {
                switch (p) {
                    case Text t when !t.text().isBlank() -> line(sb, "[" + m.sender() + "] ", t.text());
                    case Thinking t -> { }
                    case ToolCall c -> {
                        names.put(c.id(), c.name());
                        line(sb, "[" + m.sender() + " calls " + c.name() + "] ", c.arguments());
                    }
                    case ToolResult r -> line(sb, "[" + (r.isError() ? "error from " : "result of ")
                            + names.getOrDefault(r.toolCallId(), r.toolCallId()) + "] ", r.text());
                    default -> { }
                }
            }
        }
        if (sb.length() > maxChars) {
            return "[... " + (sb.length() - maxChars) + " earlier characters left out]\n" + sb.substring(sb.length() - maxChars);
        }
        return sb.toString();
    }

    private static void line(StringBuilder sb, String head, String text) {
        String body = text.strip();
        if (body.length() > PIECE_CHARS) {
            body = body.substring(0, PIECE_CHARS) + " [... " + (body.length() - PIECE_CHARS) + " more characters]";
        }
        sb.append(head).append(body).append('\n');
    }
}
