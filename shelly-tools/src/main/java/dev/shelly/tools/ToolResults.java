package dev.shelly.tools;

import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The size limit of tool results. A result is sent to the model in every later request of the
 * run, and providers refuse requests over their size limit, so one huge result (a 50 MB file, a
 * runaway log) would make every later turn fail. {@link ToolBox#call} therefore cuts the text of
 * each result to a limit: the tool's own ({@link Tool#withMaxResultChars}), else the caller's
 * (an agent's {@code maxToolResultChars}), else {@link #DEFAULT_MAX_CHARS}.
 *
 * <p>The limit counts the characters (UTF-16 code units) of all text parts together. The text is
 * kept from the start up to the limit, the parts after it are dropped, and a note the model reads
 * ends the last text kept, e.g.
 * {@code [truncated: 49,900,000 of 50,000,000 characters omitted; ask for less, ...]}. Images and
 * other non-text parts are kept as they are: providers limit them on their own terms.
 */
public final class ToolResults {
    /** The default limit: 100,000 characters, about 25,000 tokens. */
    public static final int DEFAULT_MAX_CHARS = 100_000;

    private ToolResults() {}

    /**
     * The result with its text cut to the limit, or the result itself when it fits.
     *
     * @param result the result
     * @param maxChars the most characters of text to keep; at least 1
     * @return the result that fits
     * @throws IllegalArgumentException when the result is null or the limit is below 1
     */
    public static ToolResult truncate(ToolResult result, int maxChars) {
        if (result == null) {
            throw new IllegalArgumentException("ToolResults.truncate result must not be null");
        }
        checkLimit(maxChars, "ToolResults.truncate maxChars");
        long total = 0;
        for (Part part : result.content()) {
            if (part instanceof Text t) {
                total += t.text().length();
            }
        }
        if (total <= maxChars) {
            return result;
        }
        List<Part> kept = new ArrayList<>(result.content().size());
        int budget = maxChars;
        int lastText = -1;
        for (Part part : result.content()) {
            if (!(part instanceof Text t)) {
                kept.add(part);
                continue;
            }
            if (budget == 0) {
                continue;
            }
            String text = t.text();
            if (text.length() > budget) {
                int end = budget;
                if (Character.isHighSurrogate(text.charAt(end - 1))) {
                    end--;
                }
                text = text.substring(0, end);
            }
            budget -= Math.min(budget, t.text().length());
            kept.add(new Text(text));
            lastText = kept.size() - 1;
        }
        long keptChars = 0;
        for (Part part : kept) {
            if (part instanceof Text t) {
                keptChars += t.text().length();
            }
        }
        String note = note(total - keptChars, total);
        if (lastText < 0) {
            kept.add(0, new Text(note));
        } else {
            Text last = (Text) kept.get(lastText);
            kept.set(lastText, new Text(last.text() + "\n\n" + note));
        }
        return new ToolResult(result.toolCallId(), kept, result.isError());
    }

    /** The note ending a truncated result. */
    static String note(long omitted, long total) {
        return "[truncated: " + grouped(omitted) + " of " + grouped(total)
                + " characters omitted; ask for less, e.g. a narrower query, a smaller range or fewer lines]";
    }

    /**
     * A count with its thousands grouped by commas ({@code 49,900,000}), as {@code %,d} writes it
     * in {@link Locale#ROOT}, without a formatter: a result is cut on a rare path, which the JVM
     * runs uncompiled, where parsing a format costs a tenth of a millisecond.
     */
    static String grouped(long count) {
        String digits = Long.toString(count);
        int sign = count < 0 ? 1 : 0;
        int length = digits.length() - sign;
        if (length <= 3) {
            return digits;
        }
        StringBuilder out = new StringBuilder(digits.length() + (length - 1) / 3).append(digits, 0, sign);
        int first = length % 3 == 0 ? 3 : length % 3;
        out.append(digits, sign, sign + first);
        for (int i = sign + first; i < digits.length(); i += 3) {
            out.append(',').append(digits, i, i + 3);
        }
        return out.toString();
    }

    /** Checks a limit given in code or configuration. */
    static int checkLimit(int maxChars, String what) {
        if (maxChars < 1) {
            throw new IllegalArgumentException(what + " must be at least 1, was " + maxChars);
        }
        return maxChars;
    }
}
