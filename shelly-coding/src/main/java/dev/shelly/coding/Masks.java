package dev.shelly.coding;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a sandboxed command may not see or change inside the workspace, found by one walk that
 * follows no link: every sensitive entry is masked (a folder whole), a hard link to a sensitive
 * file is masked too (found by device and inode), and every {@code .git} folder is read-only
 * unless the program is git itself (its hooks and configuration are code).
 *
 * @param masked entries that appear empty and unchangeable
 * @param readOnly entries that can be read but not changed
 */
record Masks(List<Path> masked, List<Path> readOnly) {

    static Masks of(Workspace ws, boolean gitWrites) throws IOException {
        List<Path> masked = new ArrayList<>();
        List<Path> readOnly = new ArrayList<>();
        Set<Object> secretKeys = new HashSet<>();
        Map<Object, List<Path>> others = new HashMap<>();
        walk(ws, ws.root(), "", gitWrites, masked, readOnly, secretKeys, others);
        for (Object key : secretKeys) {
            List<Path> links = others.get(key);
            if (links != null) {
                masked.addAll(links);
            }
        }
        return new Masks(List.copyOf(masked), List.copyOf(readOnly));
    }

    /** Walks a folder whose own path ({@code rel}, "" for the root) was found not sensitive. */
    private static void walk(Workspace ws, Path dir, String rel, boolean gitWrites, List<Path> masked,
            List<Path> readOnly, Set<Object> secretKeys, Map<Object, List<Path>> others) {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                BasicFileAttributes at;
                try {
                    at = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                } catch (IOException e) {
                    continue;
                }
                if (at.isSymbolicLink()) {
                    continue;
                }
                String name = p.getFileName().toString();
                String child = rel.isEmpty() ? name : rel + "/" + name;
                if (name.equals(".git")) {
                    if (!gitWrites) {
                        readOnly.add(p);
                    }
                    if (at.isDirectory()) {
                        // Its top-level files (config above all, which may hold a token) are secrets by identity.
                        keysOf(p, secretKeys, false);
                    }
                } else if (ws.isSensitiveEntry(child, name)) {
                    masked.add(p);
                    if (at.isDirectory()) {
                        keysOf(p, secretKeys, true);
                    } else if (at.isRegularFile() && at.fileKey() != null) {
                        secretKeys.add(at.fileKey());
                    }
                } else if (at.isDirectory()) {
                    walk(ws, p, child, gitWrites, masked, readOnly, secretKeys, others);
                } else if (at.isRegularFile() && at.fileKey() != null) {
                    others.computeIfAbsent(at.fileKey(), k -> new ArrayList<>(1)).add(p);
                }
            }
        } catch (IOException | RuntimeException e) {
            // An unreadable directory: a command cannot read it either.
        }
    }

    /** The identities of the regular files in a folder (and, when deep, below it). */
    private static void keysOf(Path dir, Set<Object> keys, boolean deep) {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                BasicFileAttributes at = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (at.isRegularFile() && at.fileKey() != null) {
                    keys.add(at.fileKey());
                } else if (deep && at.isDirectory()) {
                    keysOf(p, keys, true);
                }
            }
        } catch (IOException | RuntimeException e) {
            // Unreadable: nothing to compare against.
        }
    }
}
