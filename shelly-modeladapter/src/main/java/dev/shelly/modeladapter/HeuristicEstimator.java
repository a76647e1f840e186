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
    private static final int MESSAGE = 3;
    private static final int TOOL_CALL = 0;
    private static final int TOOL_RESULT = 2;
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

    /** Prose: punctuation merges less often than in JSON. */
    static long prose(String text) {
        return count(text, 0.6);
    }

    /** JSON: quotes, braces and colons often merge into one token with their neighbours. */
    static long json(String text) {
        return count(text, 0.5);
    }

    /**
     * Counts the pieces a byte-pair tokenizer such as o200k_base makes of a text: a run of
     * letters is a token per seven letters (most words are one), a run of digits a token per
     * three digits, spaces join the word after them, a run of line breaks is one token, other
     * ASCII symbols are a token each less the share that merges with a neighbour, and every other
     * character is a token.
     */
    private static long count(String text, double symbolWeight) {
        if (text == null || text.isEmpty()) {
            return 0;
        }
        long tokens = 0;
        int symbols = 0;
        int n = text.length();
        int i = 0;
        while (i < n) {
            char ch = text.charAt(i);
            if (isLetter(ch)) {
                int j = i;
                while (j < n && isLetter(text.charAt(j))) {
                    j++;
                }
                tokens += (j - i + 6) / 7;
                i = j;
            } else if (ch >= '0' && ch <= '9') {
                int j = i;
                while (j < n && text.charAt(j) >= '0' && text.charAt(j) <= '9') {
                    j++;
                }
                tokens += (j - i + 2) / 3;
                i = j;
            } else if (ch == '\n') {
                while (i < n && text.charAt(i) == '\n') {
                    i++;
                }
                tokens++;
            } else {
                if (ch == ' ' || ch == '\t' || ch == '\r') {
                    // joins the next word
                } else if (ch < 128) {
                    symbols++;
                } else if (!Character.isLowSurrogate(ch)) {
                    tokens++;
                }
                i++;
            }
        }
        return tokens + (long) Math.ceil(symbols * symbolWeight);
    }

    private static boolean isLetter(char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
    }
}
