package dev.shelly.coding;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.Deque;

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
        Deque<Gitignore> ignores = new ArrayDeque<>();
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
        ignores.push(top);
        Files.walkFileTree(start, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
                if (d.equals(start)) {
                    return FileVisitResult.CONTINUE;
                }
                String rel = ws.relative(d);
                if (d.getFileName().toString().equals(".git") || ws.isSensitive(rel) || ignores.peek().ignored(rel, true)) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                ignores.push(ignores.peek().enter(d, rel));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) {
                if (!d.equals(start)) {
                    ignores.pop();
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                String rel = ws.relative(f);
                if (!attrs.isRegularFile() || ws.isSensitive(rel) || ignores.peek().ignored(rel, false)) {
                    return FileVisitResult.CONTINUE;
                }
                return visitor.visit(f, rel, attrs) ? FileVisitResult.CONTINUE : FileVisitResult.TERMINATE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path f, IOException e) {
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
