package dev.shelly.coding;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.List;

/**
 * Walks a tree inside the workspace as list and search see it, through directory handles: links
 * are not followed, the {@code .git} folder, sensitive files (by name, and hard links to them by
 * identity) and what {@code .gitignore} files ignore are skipped. Whatever a {@code .gitignore}
 * says, a sensitive file is never visited.
 */
final class Tree {
    /** The largest {@code .gitignore} read; a larger one is not applied. */
    static final int MAX_GITIGNORE_BYTES = 1024 * 1024;

    /** Visits one regular file; returns false to stop the walk. */
    @FunctionalInterface
    interface Visitor {
        boolean visit(Handles.Entry file, PosixFileAttributes attrs) throws IOException;
    }

    private Tree() {}

    static void walk(Workspace ws, Handles h, Handles.Dir start, Visitor visitor) throws IOException {
        // The .gitignore files above the start apply too.
        Gitignore rules = Gitignore.EMPTY.enter(gitignore(h, h.root()), "");
        if (!start.rel().equals(".")) {
            String at = ".";
            for (String segment : start.rel().split("/")) {
                at = at.equals(".") ? segment : at + "/" + segment;
                rules = rules.enter(gitignore(h, h.dir(at)), at);
            }
        }
        walk(ws, h, start, rules, visitor);
    }

    /** Visits a directory's entries in name order; returns false when the visitor stopped. */
    private static boolean walk(Workspace ws, Handles h, Handles.Dir dir, Gitignore rules, Visitor visitor)
            throws IOException {
        List<String> names;
        try {
            names = h.names(dir);
        } catch (RefusedException e) {
            return true;
        }
        for (String name : names) {
            String rel = dir.child(name);
            if (ws.isSensitive(rel)) {
                continue;
            }
            PosixFileAttributes attrs;
            try {
                attrs = h.stat(dir, name);
            } catch (RefusedException e) {
                continue;
            }
            if (attrs == null) {
                continue;
            }
            if (attrs.isDirectory()) {
                if (name.equals(".git") || rules.ignored(rel, true)) {
                    continue;
                }
                try (Handles.Dir sub = h.child(dir, name)) {
                    if (sub != null && !walk(ws, h, sub, rules.enter(gitignore(h, sub), rel), visitor)) {
                        return false;
                    }
                }
            } else if (attrs.isRegularFile() && !rules.ignored(rel, false)) {
                Handles.Entry file = new Handles.Entry(dir, name, rel);
                if (h.sensitiveTwin(file, attrs) == null && !visitor.visit(file, attrs)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The lines of a directory's {@code .gitignore}; none when it has none or it cannot be read. */
    private static List<String> gitignore(Handles h, Handles.Dir dir) {
        if (dir == null) {
            return List.of();
        }
        try {
            Handles.Entry e = new Handles.Entry(dir, ".gitignore", dir.child(".gitignore"));
            PosixFileAttributes a = h.stat(e);
            if (a == null || !a.isRegularFile() || a.size() > MAX_GITIGNORE_BYTES) {
                return List.of();
            }
            return new String(h.read(e, a, MAX_GITIGNORE_BYTES), StandardCharsets.UTF_8).lines().toList();
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }
}
