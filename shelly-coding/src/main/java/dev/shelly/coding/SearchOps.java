package dev.shelly.coding;

import dev.shelly.tools.ToolOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** The search tool: a regular expression over the text files of the workspace. */
final class SearchOps {
    /** Files larger than this are not searched. */
    static final long MAX_FILE_BYTES = 2L * 1024 * 1024;
    /** The longest line shown for a match; longer ones are cut around the match. */
    static final int MAX_LINE_CHARS = 300;

    private final Workspace ws;
    private final CodingTools.Settings settings;
    private final FileOpener opener;

    SearchOps(Workspace ws, CodingTools.Settings settings, FileOpener opener) {
        this.ws = ws;
        this.settings = settings;
        this.opener = opener;
    }

    ToolOutput search(Args a) throws IOException {
        String regex = a.string("pattern");
        String asked = a.optString("path");
        String glob = a.optString("glob");
        boolean ignoreCase = a.bool("ignore_case");
        int max = a.integer("max_matches", settings.maxMatches(), 1, 10_000);
        Pattern pattern;
        try {
            pattern = Pattern.compile(regex, ignoreCase ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
        } catch (PatternSyntaxException e) {
            throw new RefusedException("pattern is not a valid regular expression: " + e.getDescription() + " near index "
                    + e.getIndex());
        }
        PathMatcher files;
        try {
            files = glob == null ? null : FileSystems.getDefault().getPathMatcher("glob:" + glob);
        } catch (RuntimeException e) {
            throw new RefusedException("glob '" + glob + "' is not valid: " + e.getMessage());
        }
        String startRel = asked == null ? "." : ws.relative(ws.resolve(asked));
        StringBuilder out = new StringBuilder();
        int[] matches = {0};
        int[] filesWith = {0};
        boolean[] capped = {false};
        int cap = settings.maxOutputChars();
        // A search makes no directory, so the lock that orders making them is its own.
        try (Handles h = Handles.open(ws, new ReentrantLock(), opener)) {
            Tree.Visitor visitor = (f, attrs) -> {
                if (files != null && !files.matches(Path.of(f.rel())) && !files.matches(Path.of(f.name()))) {
                    return true;
                }
                if (attrs.size() > MAX_FILE_BYTES) {
                    return true;
                }
                byte[] bytes;
                try {
                    bytes = h.read(f, attrs, MAX_FILE_BYTES);
                } catch (RefusedException e) {
                    // Changed or turned into another kind of file since the walk saw it.
                    return true;
                }
                for (int i = 0; i < Math.min(bytes.length, 8000); i++) {
                    if (bytes[i] == 0) {
                        return true;
                    }
                }
                String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n", -1);
                boolean any = false;
                for (int i = 0; i < lines.length; i++) {
                    Matcher m = pattern.matcher(lines[i]);
                    if (m.find()) {
                        if (matches[0] >= max) {
                            capped[0] = true;
                            return false;
                        }
                        String row = f.rel() + ":" + (i + 1) + ": " + shorten(lines[i], m.start()) + "\n";
                        if (out.length() + row.length() > cap) {
                            capped[0] = true;
                            return false;
                        }
                        out.append(row);
                        matches[0]++;
                        if (!any) {
                            filesWith[0]++;
                        }
                        any = true;
                    }
                }
                return true;
            };
            Handles.Entry e = h.entry(startRel);
            PosixFileAttributes at = e == null ? null : h.stat(e);
            if (at != null && !at.isDirectory()) {
                h.checkReadable(e, at);
                visitor.visit(e, at);
            } else if (at != null) {
                Tree.walk(ws, h, h.dir(startRel), visitor);
            } else {
                throw new RefusedException("'" + startRel + "' does not exist");
            }
        }
        if (matches[0] == 0) {
            return ToolOutput.text("no match for /" + regex + "/");
        }
        out.append(matches[0]).append(" match").append(matches[0] == 1 ? "" : "es").append(" in ").append(filesWith[0])
                .append(" file").append(filesWith[0] == 1 ? "" : "s");
        if (capped[0]) {
            out.append("; stopped at the cap (").append(max).append(" matches or ").append(cap)
                    .append(" characters): narrow the pattern, the path or the glob");
        }
        return ToolOutput.text(out.toString());
    }

    private static String shorten(String line, int at) {
        String l = line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
        if (l.length() <= MAX_LINE_CHARS) {
            return l;
        }
        int from = Math.max(0, Math.min(at - MAX_LINE_CHARS / 3, l.length() - MAX_LINE_CHARS));
        return (from > 0 ? "..." : "") + l.substring(from, from + MAX_LINE_CHARS) + "...";
    }
}
