package dev.shelly.coding;

import dev.shelly.tools.ToolOutput;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/** The file tools: each method is one tool's handler. */
final class FileOps {
    private final Workspace ws;
    private final CodingTools.Settings settings;
    private final PathLocks locks;

    FileOps(Workspace ws, CodingTools.Settings settings, PathLocks locks) {
        this.ws = ws;
        this.settings = settings;
        this.locks = locks;
    }

    ToolOutput read(Args a) throws IOException {
        String asked = a.string("path");
        int start = a.integer("start_line", 1, 1, Integer.MAX_VALUE);
        int end = a.integer("end_line", Integer.MAX_VALUE, 1, Integer.MAX_VALUE);
        if (end < start) {
            throw new RefusedException("end_line " + end + " is before start_line " + start);
        }
        Path p = ws.resolve(asked);
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            throw new RefusedException("'" + ws.relative(p) + "' is a directory; list it with " + CodingTools.LIST);
        }
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            throw new RefusedException("file '" + ws.relative(p) + "' does not exist");
        }
        long size = Files.size(p);
        int cap = settings.maxReadChars();
        StringBuilder out = new StringBuilder();
        int line = 0;
        boolean more = false;
        try (InputStream in = Files.newInputStream(p, LinkOption.NOFOLLOW_LINKS)) {
            byte[] head = in.readNBytes(8000);
            for (byte b : head) {
                if (b == 0) {
                    throw new RefusedException("'" + ws.relative(p) + "' is a binary file (" + size + " bytes); "
                            + CodingTools.READ + " reads text");
                }
            }
            InputStream all = new java.io.SequenceInputStream(new java.io.ByteArrayInputStream(head), in);
            BufferedReader r = new BufferedReader(new InputStreamReader(all, StandardCharsets.UTF_8));
            String s;
            while ((s = r.readLine()) != null) {
                line++;
                if (line < start) {
                    continue;
                }
                if (line > end) {
                    break;
                }
                String row = String.format("%6d\t%s%n", line, s);
                if (out.length() + row.length() > cap) {
                    more = true;
                    break;
                }
                out.append(row);
            }
        }
        if (line < start && start > 1) {
            throw new RefusedException("'" + ws.relative(p) + "' has " + line + " lines; start_line " + start
                    + " is past its end");
        }
        if (more) {
            out.append("[stopped at ").append(cap).append(" characters after line ").append(line - 1)
                    .append(" of '").append(ws.relative(p)).append("' (").append(size)
                    .append(" bytes); read on with start_line ").append(line).append(']');
        }
        return ToolOutput.text(out.isEmpty() ? "(empty file)" : out.toString());
    }

    ToolOutput write(Args a) throws Exception {
        Path p = ws.resolve(a.string("path"));
        String content = a.string("content");
        try (AutoCloseable l = locks.lock(List.of(p))) {
            if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                throw new RefusedException("'" + ws.relative(p) + "' is a directory");
            }
            boolean existed = Files.exists(p, LinkOption.NOFOLLOW_LINKS);
            Files.createDirectories(p.getParent());
            // The parent was created now: make sure no link moved it out meanwhile.
            ws.resolve(ws.relative(p));
            writeAtomically(p, content);
            return ToolOutput.text((existed ? "wrote " : "created ") + ws.relative(p) + " ("
                    + content.getBytes(StandardCharsets.UTF_8).length + " bytes)");
        }
    }

    ToolOutput edit(Args a) throws Exception {
        Path p = ws.resolve(a.string("path"));
        String old = a.string("old_text");
        String replacement = a.string("new_text");
        boolean all = a.bool("replace_all");
        if (old.isEmpty()) {
            throw new RefusedException("old_text is empty; to write a whole file use " + CodingTools.WRITE);
        }
        if (old.equals(replacement)) {
            throw new RefusedException("old_text and new_text are the same; nothing to change");
        }
        try (AutoCloseable l = locks.lock(List.of(p))) {
            String text = readText(p);
            List<Integer> at = new ArrayList<>();
            for (int i = text.indexOf(old); i >= 0; i = text.indexOf(old, i + old.length())) {
                at.add(i);
            }
            if (at.isEmpty()) {
                throw new RefusedException("old_text was not found in '" + ws.relative(p)
                        + "'; it must match the file exactly, whitespace included (read the file again)");
            }
            if (at.size() > 1 && !all) {
                List<String> lines = at.stream().limit(10).map(i -> String.valueOf(lineOf(text, i))).toList();
                throw new RefusedException("old_text occurs " + at.size() + " times in '" + ws.relative(p)
                        + "' (at lines " + String.join(", ", lines) + "); add surrounding lines to make it unique, "
                        + "or set replace_all to replace every one");
            }
            String updated = all ? text.replace(old, replacement) : text.substring(0, at.getFirst()) + replacement
                    + text.substring(at.getFirst() + old.length());
            writeAtomically(p, updated);
            return ToolOutput.text("edited " + ws.relative(p) + ": replaced " + (all ? at.size() : 1) + " occurrence"
                    + (all && at.size() > 1 ? "s" : "") + " at line " + lineOf(text, at.getFirst()));
        }
    }

    ToolOutput patch(Args a) throws Exception {
        List<UnifiedDiff.FilePatch> patches = UnifiedDiff.parse(a.string("patch"));
        List<Path> targets = new ArrayList<>();
        List<Path> sources = new ArrayList<>();
        for (UnifiedDiff.FilePatch fp : patches) {
            sources.add(fp.oldPath() == null ? null : ws.resolve(fp.oldPath()));
            targets.add(fp.newPath() == null ? null : ws.resolve(fp.newPath()));
        }
        List<Path> all = new ArrayList<>();
        sources.stream().filter(x -> x != null).forEach(all::add);
        targets.stream().filter(x -> x != null).forEach(all::add);
        try (AutoCloseable l = locks.lock(all)) {
            // Every hunk of every file must apply before anything is written.
            List<String> results = new ArrayList<>();
            for (int i = 0; i < patches.size(); i++) {
                UnifiedDiff.FilePatch fp = patches.get(i);
                String before;
                if (sources.get(i) == null) {
                    if (Files.exists(targets.get(i), LinkOption.NOFOLLOW_LINKS)) {
                        throw new RefusedException("the patch creates '" + fp.newPath() + "', which exists already");
                    }
                    before = "";
                } else {
                    before = readText(sources.get(i));
                }
                results.add(fp.apply(before));
            }
            StringBuilder report = new StringBuilder();
            for (int i = 0; i < patches.size(); i++) {
                Path target = targets.get(i);
                Path source = sources.get(i);
                if (target == null) {
                    Files.delete(source);
                    report.append("deleted ").append(ws.relative(source)).append('\n');
                    continue;
                }
                Files.createDirectories(target.getParent());
                writeAtomically(target, results.get(i));
                if (source != null && !source.equals(target)) {
                    Files.delete(source);
                    report.append("renamed ").append(ws.relative(source)).append(" to ");
                } else {
                    report.append(source == null ? "created " : "patched ");
                }
                report.append(ws.relative(target)).append(" (").append(patches.get(i).hunks().size()).append(" hunk")
                        .append(patches.get(i).hunks().size() == 1 ? "" : "s").append(")\n");
            }
            return ToolOutput.text(report.toString().strip());
        }
    }

    ToolOutput list(Args a) throws IOException {
        String asked = a.optString("path");
        String glob = a.optString("glob");
        int max = a.integer("max_entries", settings.maxListEntries(), 1, 100_000);
        Path dir = asked == null ? ws.root() : ws.resolve(asked);
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new RefusedException("'" + ws.relative(dir) + "' is not a directory");
        }
        List<String> out = new ArrayList<>();
        int[] total = {0};
        if (glob == null) {
            try (Stream<Path> s = Files.list(dir)) {
                for (Path p : s.sorted().toList()) {
                    String rel = ws.relative(p);
                    if (hidden(rel)) {
                        continue;
                    }
                    total[0]++;
                    if (out.size() < max) {
                        out.add(describe(p, rel));
                    }
                }
            }
        } else {
            PathMatcher m;
            try {
                m = FileSystems.getDefault().getPathMatcher("glob:" + glob);
            } catch (RuntimeException e) {
                throw new RefusedException("glob '" + glob + "' is not valid: " + e.getMessage());
            }
            Tree.walk(ws, dir, (p, rel, attrs) -> {
                String below = dir.equals(ws.root()) ? rel : dir.relativize(p).toString().replace('\\', '/');
                if (m.matches(Path.of(below)) || m.matches(Path.of(rel))) {
                    total[0]++;
                    if (out.size() < max) {
                        out.add(describe(p, rel));
                    }
                }
                return true;
            });
        }
        StringBuilder b = new StringBuilder(String.join("\n", out));
        if (out.isEmpty()) {
            b.append(glob == null ? "(empty directory)" : "(no file matches '" + glob + "')");
        }
        if (total[0] > out.size()) {
            b.append("\n[").append(total[0] - out.size()).append(" more entries not shown; narrow the glob or the path]");
        }
        return ToolOutput.text(b.toString());
    }

    private boolean hidden(String rel) {
        return ws.isSensitive(rel);
    }

    private String describe(Path p, String rel) {
        try {
            BasicFileAttributes at = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (at.isDirectory()) {
                return rel + "/";
            }
            if (at.isSymbolicLink()) {
                return rel + " -> (link)";
            }
            return rel + " (" + at.size() + " bytes)";
        } catch (IOException e) {
            return rel;
        }
    }

    ToolOutput stat(Args a) throws IOException {
        Path p = ws.resolve(a.string("path"));
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            throw new RefusedException("'" + ws.relative(p) + "' does not exist");
        }
        BasicFileAttributes at = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        StringBuilder b = new StringBuilder();
        b.append("path: ").append(ws.relative(p)).append('\n');
        b.append("type: ").append(at.isDirectory() ? "directory" : at.isRegularFile() ? "file" : "other").append('\n');
        if (at.isRegularFile()) {
            b.append("size: ").append(at.size()).append(" bytes\n");
            b.append("executable: ").append(Files.isExecutable(p)).append('\n');
        }
        b.append("modified: ").append(at.lastModifiedTime()).append('\n');
        return ToolOutput.text(b.toString().strip());
    }

    ToolOutput move(Args a) throws Exception {
        Path from = ws.entry(a.string("from"));
        Path to = ws.entry(a.string("to"));
        boolean overwrite = a.bool("overwrite");
        try (AutoCloseable l = locks.lock(List.of(from, to))) {
            if (!Files.exists(from, LinkOption.NOFOLLOW_LINKS)) {
                throw new RefusedException("'" + ws.relative(from) + "' does not exist");
            }
            if (to.startsWith(from)) {
                throw new RefusedException("cannot move '" + ws.relative(from) + "' into itself");
            }
            if (Files.exists(to, LinkOption.NOFOLLOW_LINKS) && !overwrite) {
                throw new RefusedException("'" + ws.relative(to) + "' exists; set overwrite to replace it");
            }
            Files.createDirectories(to.getParent());
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return ToolOutput.text("moved " + ws.relative(from) + " to " + ws.relative(to));
        }
    }

    ToolOutput copy(Args a) throws Exception {
        Path from = ws.resolve(a.string("from"));
        Path to = ws.entry(a.string("to"));
        boolean overwrite = a.bool("overwrite");
        try (AutoCloseable l = locks.lock(List.of(from, to))) {
            if (!Files.isRegularFile(from, LinkOption.NOFOLLOW_LINKS)) {
                throw new RefusedException("'" + ws.relative(from) + "' is not a file; " + CodingTools.COPY
                        + " copies one file");
            }
            if (Files.exists(to, LinkOption.NOFOLLOW_LINKS) && !overwrite) {
                throw new RefusedException("'" + ws.relative(to) + "' exists; set overwrite to replace it");
            }
            Files.createDirectories(to.getParent());
            Path tmp = Files.createTempFile(to.getParent(), "." + to.getFileName() + ".", ".shelly-tmp");
            try {
                Files.copy(from, tmp, StandardCopyOption.REPLACE_EXISTING, LinkOption.NOFOLLOW_LINKS);
                Files.move(tmp, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
            return ToolOutput.text("copied " + ws.relative(from) + " to " + ws.relative(to));
        }
    }

    ToolOutput delete(Args a) throws Exception {
        Path p = ws.entry(a.string("path"));
        boolean recursive = a.bool("recursive");
        try (AutoCloseable l = locks.lock(List.of(p))) {
            if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                throw new RefusedException("'" + ws.relative(p) + "' does not exist");
            }
            if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                if (!recursive) {
                    try {
                        Files.delete(p);
                    } catch (DirectoryNotEmptyException e) {
                        throw new RefusedException("directory '" + ws.relative(p)
                                + "' is not empty; set recursive to delete it with everything in it");
                    }
                    return ToolOutput.text("deleted directory " + ws.relative(p));
                }
                int[] n = {0};
                // Walks without following links: a link inside is deleted, never what it points to.
                Files.walkFileTree(p, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                        Files.delete(file);
                        n[0]++;
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                        if (e != null) {
                            throw e;
                        }
                        Files.delete(dir);
                        return FileVisitResult.CONTINUE;
                    }
                });
                return ToolOutput.text("deleted directory " + ws.relative(p) + " and the " + n[0] + " files in it");
            }
            Files.delete(p);
            return ToolOutput.text("deleted " + ws.relative(p));
        }
    }

    ToolOutput mkdir(Args a) throws IOException {
        Path p = ws.resolve(a.string("path"));
        if (Files.exists(p, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            throw new RefusedException("'" + ws.relative(p) + "' exists and is not a directory");
        }
        Files.createDirectories(p);
        ws.resolve(ws.relative(p));
        return ToolOutput.text("directory " + ws.relative(p) + " exists");
    }

    String readText(Path p) throws IOException {
        if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
            throw new RefusedException("'" + ws.relative(p) + "' is not an existing file");
        }
        long size = Files.size(p);
        if (size > settings.maxEditBytes()) {
            throw new RefusedException("'" + ws.relative(p) + "' has " + size + " bytes; the coding tools change files of "
                    + "at most " + settings.maxEditBytes() + " bytes");
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(p, LinkOption.NOFOLLOW_LINKS)) {
            bytes = in.readAllBytes();
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new RefusedException("'" + ws.relative(p) + "' is not UTF-8 text");
        }
    }

    /** Writes to a temporary file beside the target, then renames it over the target. */
    static void writeAtomically(Path target, String content) throws IOException {
        Path tmp = Files.createTempFile(target.getParent(), "." + target.getFileName() + ".", ".shelly-tmp");
        try {
            Files.writeString(tmp, content, StandardCharsets.UTF_8);
            try (var ch = java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
                PosixFileAttributeView view = Files.getFileAttributeView(target, PosixFileAttributeView.class,
                        LinkOption.NOFOLLOW_LINKS);
                if (view != null) {
                    Set<PosixFilePermission> perms = view.readAttributes().permissions();
                    Files.setPosixFilePermissions(tmp, perms);
                }
            }
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    static int lineOf(String text, int index) {
        int line = 1;
        for (int i = 0; i < index; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }
}
