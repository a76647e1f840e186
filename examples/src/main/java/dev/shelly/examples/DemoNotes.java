package dev.shelly.examples;

import dev.shelly.tools.Description;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolOutput;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** A small, fixed set of research notes and a tool that searches them: the examples' stand-in for web search. */
final class DemoNotes {
    static final List<String> NOTES = List.of(
            "Virtual threads are lightweight threads scheduled by the JVM rather than the operating system; "
                    + "a program can run millions of them.",
            "Virtual threads became a final feature in Java 21 (JEP 444), after previews in Java 19 and 20.",
            "A virtual thread that blocks on I/O unmounts from its carrier thread, so waiting costs almost nothing.",
            "Before Java 24, a virtual thread blocking inside a synchronized block pins its carrier thread; "
                    + "java.util.concurrent locks avoid that.",
            "AI agents spend most of their time waiting on model APIs and tools, which suits virtual threads: "
                    + "one per delegated agent or tool call.",
            "Cancelling work on a virtual thread is interruption: a blocked call answers Thread.interrupt() promptly.");

    /** The input of {@code search_notes}. */
    record Query(@Description("words to look for, e.g. virtual threads") String query) {}

    private DemoNotes() {}

    /** The {@code search_notes} tool. */
    static Tool searchTool() {
        return Tool.typed("search_notes", "Search the research notes (about Java virtual threads); returns the best "
                + "matching notes, one per line", Query.class, (in, ctx) -> ToolOutput.text(search(in.query())));
    }

    /** The notes that share the most words with the query, best first, at most three. */
    static String search(String query) {
        List<String> words = new ArrayList<>();
        for (String w : query.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
            if (w.length() >= 3) {
                words.add(w);
            }
        }
        List<String> hits = NOTES.stream()
                .filter(n -> score(n, words) > 0)
                .sorted(Comparator.comparingInt((String n) -> -score(n, words)))
                .limit(3)
                .map(n -> "- " + n)
                .toList();
        return hits.isEmpty() ? "no notes match '" + query + "'; the notes are about Java virtual threads"
                : String.join("\n", hits);
    }

    private static int score(String note, List<String> words) {
        String text = note.toLowerCase(Locale.ROOT);
        int score = 0;
        for (String w : words) {
            if (text.contains(w)) {
                score++;
            }
        }
        return score;
    }
}
