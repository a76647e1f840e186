package dev.shelly.coding;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A unified diff ({@code diff -u}, {@code git diff}) of one or more files, and its application:
 * every hunk must find its context lines exactly, at the stated line or, when lines above moved,
 * at the nearest place; a hunk that matches nowhere fails the whole patch, naming the file and
 * the hunk.
 */
final class UnifiedDiff {
    private static final Pattern HUNK = Pattern.compile("^@@ -(\\d+)(?:,(\\d+))? \\+(\\d+)(?:,(\\d+))? @@.*$");

    record Hunk(int oldStart, List<String> before, List<String> after, String header) {}

    /**
     * One file's part of a patch.
     *
     * @param oldPath the file before, or null when the patch creates it
     * @param newPath the file after, or null when the patch deletes it
     */
    record FilePatch(String oldPath, String newPath, List<Hunk> hunks) {
        String apply(String text) {
            boolean endsWithNewline = text.isEmpty() || text.endsWith("\n");
            List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
            if (text.endsWith("\n") || text.isEmpty()) {
                lines.removeLast();
            }
            int shift = 0;
            for (int h = 0; h < hunks.size(); h++) {
                Hunk hunk = hunks.get(h);
                int want = Math.max(0, hunk.oldStart() - 1 + shift);
                if (hunk.before().isEmpty()) {
                    want = Math.min(hunk.oldStart() == 0 ? 0 : hunk.oldStart() + shift, lines.size());
                }
                int at = find(lines, hunk.before(), want);
                if (at < 0) {
                    throw new RefusedException("hunk " + (h + 1) + " (" + hunk.header() + ") of the patch for '"
                            + (oldPath != null ? oldPath : newPath)
                            + "' does not match the file: its context and removed lines were not found; read the file "
                            + "again and make the patch against its current text");
                }
                for (int i = 0; i < hunk.before().size(); i++) {
                    lines.remove(at);
                }
                lines.addAll(at, hunk.after());
                shift += hunk.after().size() - hunk.before().size() + (at - want);
            }
            String out = String.join("\n", lines);
            return lines.isEmpty() ? "" : endsWithNewline ? out + "\n" : out;
        }

        private static int find(List<String> lines, List<String> block, int want) {
            for (int d = 0; d <= lines.size(); d++) {
                for (int at : new int[] {want - d, want + d}) {
                    if (at >= 0 && at + block.size() <= lines.size() && lines.subList(at, at + block.size()).equals(block)) {
                        return at;
                    }
                }
            }
            return -1;
        }
    }

    private UnifiedDiff() {}

    static List<FilePatch> parse(String patch) {
        List<String> lines = List.of(patch.replace("\r\n", "\n").split("\n", -1));
        List<FilePatch> out = new ArrayList<>();
        int i = 0;
        while (i < lines.size()) {
            if (!lines.get(i).startsWith("--- ") || i + 1 >= lines.size() || !lines.get(i + 1).startsWith("+++ ")) {
                i++;
                continue;
            }
            String oldPath = path(lines.get(i).substring(4));
            String newPath = path(lines.get(i + 1).substring(4));
            i += 2;
            List<Hunk> hunks = new ArrayList<>();
            while (i < lines.size() && lines.get(i).startsWith("@@")) {
                Matcher m = HUNK.matcher(lines.get(i));
                if (!m.matches()) {
                    throw new RefusedException("patch line " + (i + 1) + " is not a hunk header: '"
                            + Workspace.shown(lines.get(i)) + "'");
                }
                String header = lines.get(i);
                int oldCount = m.group(2) == null ? 1 : Integer.parseInt(m.group(2));
                int newCount = m.group(4) == null ? 1 : Integer.parseInt(m.group(4));
                List<String> before = new ArrayList<>();
                List<String> after = new ArrayList<>();
                i++;
                while (i < lines.size() && (before.size() < oldCount || after.size() < newCount)) {
                    String l = lines.get(i);
                    if (l.startsWith("\\")) {
                        i++;
                        continue;
                    }
                    char c = l.isEmpty() ? ' ' : l.charAt(0);
                    String body = l.isEmpty() ? "" : l.substring(1);
                    switch (c) {
                        case ' ' -> {
                            before.add(body);
                            after.add(body);
                        }
                        case '-' -> before.add(body);
                        case '+' -> after.add(body);
                        default -> throw new RefusedException("patch line " + (i + 1) + " of hunk '" + header
                                + "' starts with '" + c + "'; hunk lines start with ' ', '-' or '+'");
                    }
                    i++;
                }
                if (before.size() != oldCount || after.size() != newCount) {
                    throw new RefusedException("hunk '" + header + "' announces " + oldCount + " old and " + newCount
                            + " new lines but holds " + before.size() + " and " + after.size());
                }
                while (i < lines.size() && lines.get(i).startsWith("\\")) {
                    i++;
                }
                hunks.add(new Hunk(Integer.parseInt(m.group(1)), before, after, header));
            }
            if (hunks.isEmpty() && !(oldPath == null || newPath == null)) {
                throw new RefusedException("the patch for '" + newPath + "' has no hunks");
            }
            if (oldPath == null && newPath == null) {
                throw new RefusedException("a file of the patch has /dev/null on both sides");
            }
            out.add(new FilePatch(oldPath, newPath, hunks));
        }
        if (out.isEmpty()) {
            throw new RefusedException("the patch holds no file: a unified diff starts each file with '--- a/path' and "
                    + "'+++ b/path' lines, followed by '@@ -l,n +l,n @@' hunks");
        }
        return out;
    }

    private static String path(String header) {
        String p = header;
        int tab = p.indexOf('\t');
        if (tab >= 0) {
            p = p.substring(0, tab);
        }
        p = p.strip();
        if (p.equals("/dev/null")) {
            return null;
        }
        if (p.startsWith("a/") || p.startsWith("b/")) {
            p = p.substring(2);
        }
        return p;
    }
}
