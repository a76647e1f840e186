package dev.shelly.coding;

import dev.shelly.tools.ToolOutput;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.SequenceInputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/** The file tools: each method is one tool's handler. */
@SuppressWarnings("try") // each path lock is held for its block, never used in it
final class FileOps {
    private final Workspace ws;
    private final CodingTools.Settings settings;
    private final PathLocks locks;
    private final FileOpener opener;
    /** Held while a directory is moved into place, across calls. */
    private final Lock creating = new ReentrantLock();

    FileOps(Workspace ws, CodingTools.Settings settings, PathLocks locks, FileOpener opener) {
        this.ws = ws;
        this.settings = settings;
        this.locks = locks;
        this.opener = opener;
    }

    /** Opens the workspace's root for one call. */
    private Handles handles() throws IOException {
        return Handles.open(ws, creating, opener);
    }

    ToolOutput read(Args a) throws IOException {
        String asked = a.string("path");
        int start = a.integer("start_line", 1, 1, Integer.MAX_VALUE);
        int end = a.integer("end_line", Integer.MAX_VALUE, 1, Integer.MAX_VALUE);
        if (end < start) {
            throw new RefusedException("end_line " + end + " is before start_line " + start);
        }
        String rel = ws.relative(ws.resolve(asked));
        try (Handles h = handles()) {
            Handles.Entry e = h.entry(rel);
            PosixFileAttributes at = e == null ? null : h.stat(e);
            if (at == null) {
                throw new RefusedException("file '" + rel + "' does not exist");
            }
            if (at.isDirectory()) {
                throw new RefusedException("'" + rel + "' is a directory; list it with " + CodingTools.LIST);
            }
            h.checkReadable(e, at);
            return ToolOutput.text(numbered(h, e, at, start, end));
        }
    }

    private String numbered(Handles h, Handles.Entry e, PosixFileAttributes at, int start, int end) throws IOException {
        String rel = e.rel();
        int cap = settings.maxReadChars();
        StringBuilder out = new StringBuilder();
        int line = 0;
        boolean more = false;
        try (InputStream in = Channels.newInputStream(h.openRead(e, at))) {
            byte[] head = in.readNBytes(8000);
            for (byte b : head) {
                if (b == 0) {
                    throw new RefusedException("'" + rel + "' is a binary file (" + at.size() + " bytes); "
                            + CodingTools.READ + " reads text");
                }
            }
            InputStream all = new SequenceInputStream(new ByteArrayInputStream(head), in);
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
        } catch (RefusedException x) {
            throw x;
        } catch (IOException x) {
            throw h.failure("read", rel, x);
        }
        if (line < start && start > 1) {
            throw new RefusedException("'" + rel + "' has " + line + " lines; start_line " + start + " is past its end");
        }
        if (more) {
            out.append("[stopped at ").append(cap).append(" characters after line ").append(line - 1)
                    .append(" of '").append(rel).append("' (").append(at.size())
                    .append(" bytes); read on with start_line ").append(line).append(']');
        }
        return out.isEmpty() ? "(empty file)" : out.toString();
    }

    ToolOutput write(Args a) throws Exception {
        Path p = ws.resolve(a.string("path"));
        String rel = ws.relative(p);
        byte[] content = a.string("content").getBytes(StandardCharsets.UTF_8);
        try (AutoCloseable l = locks.lock(List.of(p)); Handles h = handles()) {
            Handles.Entry e = h.create(rel);
            PosixFileAttributes at = h.stat(e);
            if (at != null && !at.isRegularFile()) {
                throw new RefusedException("'" + rel + "' is " + Handles.kind(at)
                        + (at.isDirectory() ? "" : "; " + CodingTools.WRITE + " writes regular files only"));
            }
            writeAtomically(h, e, at, content);
            return ToolOutput.text((at != null ? "wrote " : "created ") + rel + " (" + content.length + " bytes)");
        }
    }

    ToolOutput edit(Args a) throws Exception {
        Path p = ws.resolve(a.string("path"));
        String rel = ws.relative(p);
        String old = a.string("old_text");
        String replacement = a.string("new_text");
        boolean all = a.bool("replace_all");
        if (old.isEmpty()) {
            throw new RefusedException("old_text is empty; to write a whole file use " + CodingTools.WRITE);
        }
        if (old.equals(replacement)) {
            throw new RefusedException("old_text and new_text are the same; nothing to change");
        }
        try (AutoCloseable l = locks.lock(List.of(p)); Handles h = handles()) {
            Handles.Entry e = h.entry(rel);
            Text t = readText(h, e, rel);
            String text = t.text();
            List<Integer> at = new ArrayList<>();
            for (int i = text.indexOf(old); i >= 0; i = text.indexOf(old, i + old.length())) {
                at.add(i);
            }
            if (at.isEmpty()) {
                throw new RefusedException("old_text was not found in '" + rel
                        + "'; it must match the file exactly, whitespace included (read the file again)");
            }
            if (at.size() > 1 && !all) {
                List<String> lines = at.stream().limit(10).map(i -> String.valueOf(lineOf(text, i))).toList();
                throw new RefusedException("old_text occurs " + at.size() + " times in '" + rel
                        + "' (at lines " + String.join(", ", lines) + "); add surrounding lines to make it unique, "
                        + "or set replace_all to replace every one");
            }
            String updated = all ? text.replace(old, replacement) : text.substring(0, at.getFirst()) + replacement
                    + text.substring(at.getFirst() + old.length());
            writeAtomically(h, e, t.attrs(), updated.getBytes(StandardCharsets.UTF_8));
            return ToolOutput.text("edited " + rel + ": replaced " + (all ? at.size() : 1) + " occurrence"
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
        try (AutoCloseable l = locks.lock(all); Handles h = handles()) {
            // Every hunk of every file must apply before anything is written.
            List<String> results = new ArrayList<>();
            List<PosixFileAttributes> attrs = new ArrayList<>();
            for (int i = 0; i < patches.size(); i++) {
                UnifiedDiff.FilePatch fp = patches.get(i);
                String before;
                if (sources.get(i) == null) {
                    Handles.Entry t = h.entry(ws.relative(targets.get(i)));
                    if (t != null && h.stat(t) != null) {
                        throw new RefusedException("the patch creates '" + fp.newPath() + "', which exists already");
                    }
                    before = "";
                    attrs.add(null);
                } else {
                    String rel = ws.relative(sources.get(i));
                    Text t = readText(h, h.entry(rel), rel);
                    before = t.text();
                    attrs.add(t.attrs());
                }
                results.add(fp.apply(before));
            }
            StringBuilder report = new StringBuilder();
            for (int i = 0; i < patches.size(); i++) {
                Path target = targets.get(i);
                Path source = sources.get(i);
                if (target == null) {
                    h.delete(h.entry(ws.relative(source)), false);
                    report.append("deleted ").append(ws.relative(source)).append('\n');
                    continue;
                }
                writeAtomically(h, h.create(ws.relative(target)), attrs.get(i),
                        results.get(i).getBytes(StandardCharsets.UTF_8));
                if (source != null && !source.equals(target)) {
                    h.delete(h.entry(ws.relative(source)), false);
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
        String dirRel = asked == null ? "." : ws.relative(ws.resolve(asked));
        PathMatcher m;
        try {
            m = glob == null ? null : FileSystems.getDefault().getPathMatcher("glob:" + glob);
        } catch (RuntimeException e) {
            throw new RefusedException("glob '" + glob + "' is not valid: " + e.getMessage());
        }
        List<String> out = new ArrayList<>();
        int[] total = {0};
        try (Handles h = handles()) {
            Handles.Dir dir = h.dir(dirRel);
            if (dir == null) {
                throw new RefusedException("'" + dirRel + "' is not a directory");
            }
            if (m == null) {
                for (String name : h.names(dir)) {
                    Handles.Entry e = new Handles.Entry(dir, name, dir.child(name));
                    PosixFileAttributes at = ws.isSensitive(e.rel()) ? null : h.stat(e);
                    if (at == null || h.sensitiveTwin(e, at) != null) {
                        continue;
                    }
                    total[0]++;
                    if (out.size() < max) {
                        out.add(describe(e.rel(), at));
                    }
                }
            } else {
                Tree.walk(ws, h, dir, (e, at) -> {
                    String below = dirRel.equals(".") ? e.rel() : e.rel().substring(dirRel.length() + 1);
                    if (m.matches(Path.of(below)) || m.matches(Path.of(e.rel()))) {
                        total[0]++;
                        if (out.size() < max) {
                            out.add(describe(e.rel(), at));
                        }
                    }
                    return true;
                });
            }
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

    private static String describe(String rel, PosixFileAttributes at) {
        if (at.isDirectory()) {
            return rel + "/";
        }
        if (at.isSymbolicLink()) {
            return rel + " -> (link)";
        }
        return rel + " (" + at.size() + " bytes)";
    }

    ToolOutput stat(Args a) throws IOException {
        String rel = ws.relative(ws.resolve(a.string("path")));
        try (Handles h = handles()) {
            Handles.Entry e = h.entry(rel);
            PosixFileAttributes at = e == null ? null : h.stat(e);
            if (at == null) {
                throw new RefusedException("'" + rel + "' does not exist");
            }
            if (at.isRegularFile()) {
                h.checkReadable(e, at);
            }
            StringBuilder b = new StringBuilder();
            b.append("path: ").append(rel).append('\n');
            b.append("type: ").append(at.isDirectory() ? "directory" : at.isRegularFile() ? "file" : "other").append('\n');
            if (at.isRegularFile()) {
                Set<PosixFilePermission> x = at.permissions();
                b.append("size: ").append(at.size()).append(" bytes\n");
                b.append("executable: ").append(x.contains(PosixFilePermission.OWNER_EXECUTE)
                        || x.contains(PosixFilePermission.GROUP_EXECUTE) || x.contains(PosixFilePermission.OTHERS_EXECUTE))
                        .append('\n');
            }
            b.append("modified: ").append(at.lastModifiedTime()).append('\n');
            return ToolOutput.text(b.toString().strip());
        }
    }

    /**
     * The two paths of a move or a copy, relative to the root as well.
     *
     * @param from the source: the name itself for a move (a link is moved, not followed)
     */
    private record FromTo(Path from, Path to, String fromRel, String toRel, boolean overwrite) {}

    private FromTo fromTo(Args a, boolean followSource) {
        Path from = followSource ? ws.resolve(a.string("from")) : ws.entry(a.string("from"));
        Path to = ws.entry(a.string("to"));
        return new FromTo(from, to, ws.relative(from), ws.relative(to), a.bool("overwrite"));
    }

    ToolOutput move(Args a) throws Exception {
        FromTo p = fromTo(a, false);
        String fromRel = p.fromRel();
        String toRel = p.toRel();
        try (AutoCloseable l = locks.lock(List.of(p.from(), p.to())); Handles h = handles()) {
            Handles.Entry source = h.entry(fromRel);
            if (source == null || h.stat(source) == null) {
                throw new RefusedException("'" + fromRel + "' does not exist");
            }
            if (p.to().startsWith(p.from())) {
                throw new RefusedException("cannot move '" + fromRel + "' into itself");
            }
            refuseOverwrite(h, toRel, p.overwrite());
            h.move(source, h.create(toRel));
            return ToolOutput.text("moved " + fromRel + " to " + toRel);
        }
    }

    ToolOutput copy(Args a) throws Exception {
        FromTo p = fromTo(a, true);
        String fromRel = p.fromRel();
        String toRel = p.toRel();
        try (AutoCloseable l = locks.lock(List.of(p.from(), p.to())); Handles h = handles()) {
            Handles.Entry source = h.entry(fromRel);
            PosixFileAttributes at = source == null ? null : h.stat(source);
            if (at == null || at.isDirectory()) {
                throw new RefusedException("'" + fromRel + "' is not a file; " + CodingTools.COPY + " copies one file");
            }
            h.checkReadable(source, at);
            refuseOverwrite(h, toRel, p.overwrite());
            Handles.Entry target = h.create(toRel);
            try (SeekableByteChannel in = h.openRead(source, at)) {
                h.write(target, at.permissions(), out -> Channels.newInputStream(in).transferTo(Channels.newOutputStream(out)));
            }
            return ToolOutput.text("copied " + fromRel + " to " + toRel);
        }
    }

    private static void refuseOverwrite(Handles h, String rel, boolean overwrite) throws IOException {
        Handles.Entry e = h.entry(rel);
        if (!overwrite && e != null && h.stat(e) != null) {
            throw new RefusedException("'" + rel + "' exists; set overwrite to replace it");
        }
    }

    ToolOutput delete(Args a) throws Exception {
        Path p = ws.entry(a.string("path"));
        String rel = ws.relative(p);
        boolean recursive = a.bool("recursive");
        try (AutoCloseable l = locks.lock(List.of(p)); Handles h = handles()) {
            Handles.Entry e = h.entry(rel);
            PosixFileAttributes at = e == null ? null : h.stat(e);
            if (at == null) {
                throw new RefusedException("'" + rel + "' does not exist");
            }
            if (!at.isDirectory()) {
                h.delete(e, false);
                return ToolOutput.text("deleted " + rel);
            }
            if (!recursive) {
                try {
                    h.delete(e, true);
                } catch (DirectoryNotEmptyException x) {
                    throw new RefusedException("directory '" + rel
                            + "' is not empty; set recursive to delete it with everything in it");
                }
                return ToolOutput.text("deleted directory " + rel);
            }
            int n = h.deleteTree(e);
            return ToolOutput.text("deleted directory " + rel + " and the " + n + " files in it");
        }
    }

    ToolOutput mkdir(Args a) throws IOException {
        String rel = ws.relative(ws.resolve(a.string("path")));
        try (Handles h = handles()) {
            h.dirs(rel);
        }
        return ToolOutput.text("directory " + rel + " exists");
    }

    /** A text file's content and the attributes it had when it was read. */
    record Text(String text, PosixFileAttributes attrs) {}

    private Text readText(Handles h, Handles.Entry e, String rel) throws IOException {
        PosixFileAttributes at = e == null ? null : h.stat(e);
        if (at == null || at.isDirectory()) {
            throw new RefusedException("'" + rel + "' is not an existing file");
        }
        h.checkReadable(e, at);
        if (at.size() > settings.maxEditBytes()) {
            throw new RefusedException("'" + rel + "' has " + at.size() + " bytes; the coding tools change files of "
                    + "at most " + settings.maxEditBytes() + " bytes");
        }
        byte[] bytes = h.read(e, at, settings.maxEditBytes());
        if (bytes.length > settings.maxEditBytes()) {
            throw new RefusedException("'" + rel + "' grew past " + settings.maxEditBytes() + " bytes while it was read");
        }
        try {
            return new Text(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString(), at);
        } catch (CharacterCodingException x) {
            throw new RefusedException("'" + rel + "' is not UTF-8 text");
        }
    }

    /** Writes through the handles, keeping the permissions of the file it replaces. */
    private static void writeAtomically(Handles h, Handles.Entry e, PosixFileAttributes replaced, byte[] content)
            throws IOException {
        h.write(e, replaced != null && replaced.isRegularFile() ? replaced.permissions() : null, out -> {
            ByteBuffer b = ByteBuffer.wrap(content);
            while (b.hasRemaining()) {
                out.write(b);
            }
        });
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
