package dev.shelly.modeladapter;

import dev.shelly.chats.Image;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;

/** The character-counting estimator of {@link TokenEstimator#heuristic()}. */
final class HeuristicEstimator implements TokenEstimator {
    static final HeuristicEstimator INSTANCE = new HeuristicEstimator();
    /** Framing of a whole request (the reply's priming). */
    static final int REQUEST = 3;
    private static final int MESSAGE = 4;
    private static final int TOOL_CALL = 8;
    private static final int TOOL_RESULT = 6;
    private static final int TOOL_DEFINITION = 10;
    /** An image of unknown size: about what a 1024x1024 picture costs with either provider. */
    private static final int IMAGE = 1_400;

    private HeuristicEstimator() {}

    @Override
    public long message(Message message) {
        long sum = MESSAGE;
        for (Part p : message.parts()) {
            sum += part(p);
        }
        return sum;
    }

    @Override
    public long tool(ToolDefinition tool) {
        return TOOL_DEFINITION + prose(tool.name()) + prose(tool.description()) + json(tool.inputSchema());
    }

    private static long part(Part p) {
        return switch (p) {
            case Text t -> prose(t.text());
            case Thinking t -> prose(t.text());
            case ToolCall c -> TOOL_CALL + prose(c.name()) + json(c.arguments());
            case ToolResult r -> {
                long sum = TOOL_RESULT;
                for (Part c : r.content()) {
                    sum += part(c);
                }
                yield sum;
            }
            case Image i -> IMAGE;
            default -> prose(p.toString());
        };
    }

    /** About four ASCII characters a token, one token a non-ASCII character. */
    static long prose(String text) {
        return count(text, 4.0);
    }

    /** About three characters a token: JSON's quotes, braces and names tokenize densely. */
    static long json(String text) {
        return count(text, 3.0);
    }

    private static long count(String text, double asciiPerToken) {
        if (text == null || text.isEmpty()) {
            return 0;
        }
        int ascii = 0;
        int other = 0;
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (ch < 128) {
                ascii++;
            } else if (!Character.isLowSurrogate(ch)) {
                other++;
            }
        }
        return (long) Math.ceil(ascii / asciiPerToken) + other;
    }
}
