package dev.shelly.coding;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.stream.Stream;

/**
 * Walks a tree inside the workspace as list and search see it: links are not followed, the
 * {@code .git} folder, sensitive files and what {@code .gitignore} files ignore are skipped.
 */
final class Tree {
    /** Visits one regular file; returns false to stop the walk. */
    @FunctionalInterface
    interface Visitor {
        boolean visit(Path file, String relative, BasicFileAttributes attrs) throws IOException;
    }

    private Tree() {}

    static void walk(Workspace ws, Path start, Visitor visitor) throws IOException {
        Gitignore top = Gitignore.EMPTY;
        // The .gitignore files above the start apply too.
        Path dir = ws.root();
        top = top.enter(dir, "");
        for (Path seg : ws.root().relativize(start)) {
            if (seg.toString().isEmpty()) {
                continue;
            }
            dir = dir.resolve(seg);
            top = top.enter(dir, ws.relative(dir));
        }
        walk(ws, start, top, visitor);
    }

    /** Visits a directory's entries in name order; returns false when the visitor stopped. */
    private static boolean walk(Workspace ws, Path dir, Gitignore rules, Visitor visitor) throws IOException {
        List<Path> entries;
        try (Stream<Path> s = Files.list(dir)) {
            entries = s.sorted().toList();
        } catch (IOException e) {
            return true;
        }
        for (Path p : entries) {
            BasicFileAttributes attrs;
            try {
                attrs = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (IOException e) {
                continue;
            }
            String rel = ws.relative(p);
            if (ws.isSensitive(rel)) {
                continue;
            }
            if (attrs.isDirectory()) {
                if (p.getFileName().toString().equals(".git") || rules.ignored(rel, true)) {
                    continue;
                }
                if (!walk(ws, p, rules.enter(p, rel), visitor)) {
                    return false;
                }
            } else if (attrs.isRegularFile() && !rules.ignored(rel, false) && !visitor.visit(p, rel, attrs)) {
                return false;
            }
        }
        return true;
    }
}
