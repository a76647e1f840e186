package dev.shelly.coding;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Lock;

/**
 * The open directories of one tool call. A path is walked one directory at a time from a handle
 * on the workspace root, never following a link, and the final open, create, delete or rename is
 * made relative to the handle of its verified parent: a directory swapped for a link between
 * check and use makes the call fail, never reach outside.
 *
 * <p>Only regular files are opened, each after a look that does not follow links; a file that
 * turns into a FIFO after that look cannot hang the call, because the open is bounded (see
 * {@link FileOpener}). A regular file with more than one name is refused when another of its
 * names is sensitive.
 *
 * <p>Paths are relative to the root, segments separated by {@code /}, {@code .} for the root, as
 * {@link Workspace#relative} gives them; close the handles when the call is over.
 */
final class Handles implements AutoCloseable {
    private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;

    /**
     * An open directory inside the workspace and its path relative to the root. Those a walk
     * opens the handles close; one {@link #child} gives, its caller closes.
     */
    record Dir(SecureDirectoryStream<Path> stream, String rel) implements AutoCloseable {
        String child(String name) {
            return rel.equals(".") ? name : rel + "/" + name;
        }

        @Override
        public void close() throws IOException {
            stream.close();
        }
    }

    /** A name in an open directory: what a file operation acts on. The root has no parent. */
    record Entry(Dir parent, String name, String rel) {}

    /** Writes a new file's content. */
    @FunctionalInterface
    interface Content {
        void writeTo(FileChannel out) throws IOException;
    }

    private final Workspace ws;
    private final Lock creating;
    private final FileOpener opener;
    private final Dir root;
    private final Map<String, Dir> opened = new HashMap<>();
    private final List<DirectoryStream<Path>> toClose = new ArrayList<>();
    private SensitiveTwins twins;

    private Handles(Workspace ws, Lock creating, FileOpener opener, SecureDirectoryStream<Path> root) {
        this.ws = ws;
        this.creating = creating;
        this.opener = opener;
        this.root = new Dir(root, ".");
        toClose.add(root);
    }

    /**
     * Opens the workspace root.
     *
     * @param creating held while a directory is moved into place, so that two calls making the
     *     same directory do not replace each other's
     * @param opener opens the files the call reads
     */
    static Handles open(Workspace ws, Lock creating, FileOpener opener) throws IOException {
        DirectoryStream<Path> s = Files.newDirectoryStream(ws.root());
        if (!(s instanceof SecureDirectoryStream<Path> secure)) {
            s.close();
            throw new RefusedException("the file tools need a file system that opens files relative to a directory "
                    + "handle (SecureDirectoryStream), and the workspace's does not offer it");
        }
        return new Handles(ws, creating, opener, secure);
    }

    Dir root() {
        return root;
    }

    /** The directory at a path, or null when a segment is missing or not a directory. */
    Dir dir(String rel) throws IOException {
        return walk(rel, false);
    }

    /** The directory at a path, with its missing directories made. */
    Dir dirs(String rel) throws IOException {
        return walk(rel, true);
    }

    /** The entry at a path, or null when its parent does not exist. */
    Entry entry(String rel) throws IOException {
        return entry(rel, false);
    }

    /** The entry at a path, with its parent's missing directories made. */
    Entry create(String rel) throws IOException {
        return entry(rel, true);
    }

    private Entry entry(String rel, boolean create) throws IOException {
        if (rel.equals(".")) {
            return new Entry(null, ".", ".");
        }
        int slash = rel.lastIndexOf('/');
        Dir parent = slash < 0 ? root : walk(rel.substring(0, slash), create);
        return parent == null ? null : new Entry(parent, rel.substring(slash + 1), rel);
    }

    private Dir walk(String rel, boolean create) throws IOException {
        Dir current = root;
        if (rel.equals(".")) {
            return current;
        }
        for (String segment : rel.split("/")) {
            String at = current.child(segment);
            Dir known = opened.get(at);
            if (known == null) {
                known = enter(current, segment, create);
                if (known == null) {
                    return null;
                }
                opened.put(at, known);
            }
            current = known;
        }
        return current;
    }

    private Dir enter(Dir parent, String name, boolean create) throws IOException {
        String rel = parent.child(name);
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                SecureDirectoryStream<Path> s = parent.stream().newDirectoryStream(Path.of(name), NOFOLLOW);
                toClose.add(s);
                return new Dir(s, rel);
            } catch (NoSuchFileException e) {
                if (!create) {
                    return null;
                }
                makeDirectory(parent, name);
            } catch (FileSystemException e) {
                PosixFileAttributes a = stat(parent, name);
                if (a != null && a.isSymbolicLink()) {
                    throw changed(rel);
                }
                if (a != null && !a.isDirectory()) {
                    if (!create) {
                        return null;
                    }
                    throw new RefusedException("'" + Workspace.shown(rel) + "' exists and is not a directory");
                }
                throw failure("open", rel, e);
            }
        }
        throw changed(rel);
    }

    /**
     * Makes a directory without a path that a link could redirect: a fresh directory at the
     * root, whose own path is trusted, renamed into the verified parent.
     */
    private void makeDirectory(Dir parent, String name) throws IOException {
        String rel = parent.child(name);
        Path fresh = Path.of(".shelly-mkdir-" + UUID.randomUUID());
        try {
            Files.createDirectory(ws.root().resolve(fresh));
        } catch (IOException e) {
            throw failure("create directory", rel, e);
        }
        creating.lock();
        try {
            // A rename replaces an empty directory: never rename over one that appeared meanwhile.
            if (stat(parent, name) == null) {
                root.stream().move(fresh, parent.stream(), Path.of(name));
            }
        } catch (IOException e) {
            throw failure("create directory", rel, e);
        } finally {
            creating.unlock();
            try {
                root.stream().deleteDirectory(fresh);
            } catch (IOException e) {
                // Moved into place: nothing is left behind.
            }
        }
    }

    /** The attributes of an entry, links not followed, or null when it does not exist. */
    PosixFileAttributes stat(Entry e) throws IOException {
        if (e.parent() == null) {
            return root.stream().getFileAttributeView(PosixFileAttributeView.class).readAttributes();
        }
        return stat(e.parent(), e.name());
    }

    /** The attributes of a name in a directory, links not followed, or null when it does not exist. */
    PosixFileAttributes stat(Dir dir, String name) throws IOException {
        try {
            return dir.stream().getFileAttributeView(Path.of(name), PosixFileAttributeView.class, NOFOLLOW)
                    .readAttributes();
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw failure("look at", dir.child(name), e);
        }
    }

    /** The names in a directory, in order. */
    List<String> names(Dir dir) throws IOException {
        List<String> names = new ArrayList<>();
        // A directory stream iterates once: a second stream on the same directory lists it again.
        try (SecureDirectoryStream<Path> s = dir.stream().newDirectoryStream(Path.of("."), NOFOLLOW)) {
            for (Path p : s) {
                names.add(p.getFileName().toString());
            }
        } catch (IOException | RuntimeException e) {
            throw failure("list", dir.rel(), e instanceof IOException io ? io : new IOException(e.getMessage()));
        }
        names.sort(null);
        return names;
    }

    /** Opens a subdirectory for a walk that closes it; null when it is gone or is no directory now. */
    Dir child(Dir dir, String name) {
        try {
            return new Dir(dir.stream().newDirectoryStream(Path.of(name), NOFOLLOW), dir.child(name));
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Refuses a file the tools must not read: one that is not regular, or a hard link to a
     * sensitive file.
     */
    void checkReadable(Entry e, PosixFileAttributes attrs) throws IOException {
        String rel = Workspace.shown(e.rel());
        if (!attrs.isRegularFile()) {
            throw new RefusedException("'" + rel + "' is " + kind(attrs)
                    + "; the file tools read and write only regular files and directories");
        }
        String twin = sensitiveTwin(e, attrs);
        if (twin != null) {
            throw new RefusedException("path '" + rel + "' is a hard link to the sensitive file '" + twin
                    + "'; the coding tools do not touch it");
        }
    }

    static String kind(PosixFileAttributes a) {
        return a.isDirectory() ? "a directory" : a.isSymbolicLink() ? "a symbolic link"
                : a.isRegularFile() ? "a file" : "a special file (a FIFO, socket or device)";
    }

    /**
     * Another name of the same regular file that is sensitive, or null. Only a file with more
     * than one link can have one, so only then is the workspace searched, once a call.
     */
    String sensitiveTwin(Entry e, PosixFileAttributes attrs) throws IOException {
        if (twins == null) {
            twins = new SensitiveTwins(this, ws);
        }
        return twins.of(e, attrs);
    }

    /**
     * Opens a regular file for reading through its parent's handle, links not followed; the
     * open is bounded and cannot hold up the call or any other thread (see {@link FileOpener}).
     *
     * @param checked the attributes the caller checked: what is opened must still be that file
     */
    SeekableByteChannel openRead(Entry e, PosixFileAttributes checked) throws IOException {
        String rel = e.rel();
        SecureDirectoryStream<Path> parent = e.parent() == null ? root.stream() : e.parent().stream();
        SecureDirectoryStream<Path> own;
        try {
            own = parent.newDirectoryStream(Path.of("."), NOFOLLOW);
        } catch (IOException x) {
            throw failure("open", rel, x);
        }
        SeekableByteChannel ch;
        try {
            ch = opener.open(own, Path.of(e.name()), () -> stat(e));
        } catch (TimeoutException x) {
            throw new RefusedException("'" + Workspace.shown(rel) + "' did not open: it turned into a special file (a "
                    + "FIFO or device) while the tool ran, or stayed unopened for "
                    + FileOpener.OPEN_TIMEOUT.toSeconds() + " s; the file tools read only regular files");
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while opening '" + Workspace.shown(rel) + "'");
        } catch (IOException x) {
            throw failure("open", rel, x);
        }
        // A FIFO swapped in and out while the open waited, and let go by a writer, passes a look
        // at the name: what was opened is asked too.
        PosixFileAttributes now = stat(e);
        if (!FileOpener.seekable(ch) || now == null || !now.isRegularFile()
                || !Objects.equals(now.fileKey(), checked.fileKey())) {
            ch.close();
            throw changed(rel);
        }
        return ch;
    }

    /**
     * The bytes of a regular file the caller has looked at, at most {@code limit} of them plus
     * one, so a file that grew (or a device swapped in) shows as too long instead of filling memory.
     */
    byte[] read(Entry e, PosixFileAttributes checked, long limit) throws IOException {
        try (SeekableByteChannel ch = openRead(e, checked)) {
            return Channels.newInputStream(ch).readNBytes((int) Math.min(Integer.MAX_VALUE - 8, limit + 1));
        } catch (RefusedException x) {
            throw x;
        } catch (IOException x) {
            throw failure("read", e.rel(), x);
        }
    }

    /**
     * Writes a file: a new temporary file in the verified parent, renamed over the target, so no
     * reader sees half of it and nothing a link points to is written.
     *
     * @param permissions the permissions to give it, or null for the defaults
     */
    void write(Entry e, Set<PosixFilePermission> permissions, Content content) throws IOException {
        SecureDirectoryStream<Path> dir = e.parent().stream();
        Path tmp = Path.of(".shelly-" + UUID.randomUUID() + ".tmp");
        try {
            try (SeekableByteChannel ch = dir.newByteChannel(tmp, Set.of(StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE, NOFOLLOW))) {
                FileChannel out = (FileChannel) ch;
                content.writeTo(out);
                out.force(true);
            }
            if (permissions != null) {
                dir.getFileAttributeView(tmp, PosixFileAttributeView.class, NOFOLLOW).setPermissions(permissions);
            }
            dir.move(tmp, dir, Path.of(e.name()));
        } catch (RefusedException x) {
            throw x;
        } catch (IOException x) {
            throw failure("write", e.rel(), x);
        } finally {
            try {
                dir.deleteFile(tmp);
            } catch (IOException x) {
                // Renamed into place.
            }
        }
    }

    /** Renames an entry, through both parents' handles. */
    void move(Entry from, Entry to) throws IOException {
        try {
            from.parent().stream().move(Path.of(from.name()), to.parent().stream(), Path.of(to.name()));
        } catch (IOException x) {
            throw failure("move", from.rel(), x);
        }
    }

    /** Deletes a file, a link or an empty directory. */
    void delete(Entry e, boolean directory) throws IOException {
        try {
            if (directory) {
                e.parent().stream().deleteDirectory(Path.of(e.name()));
            } else {
                e.parent().stream().deleteFile(Path.of(e.name()));
            }
        } catch (DirectoryNotEmptyException x) {
            throw x;
        } catch (IOException x) {
            throw failure("delete", e.rel(), x);
        }
    }

    /**
     * Deletes a directory and everything in it; a link inside is deleted, never what it points
     * to, and a directory swapped for a link makes the delete fail.
     *
     * @return how many files (links included) were deleted
     */
    int deleteTree(Entry e) throws IOException {
        int n = 0;
        SecureDirectoryStream<Path> opened;
        try {
            opened = e.parent().stream().newDirectoryStream(Path.of(e.name()), NOFOLLOW);
        } catch (IOException x) {
            throw failure("delete", e.rel(), x);
        }
        try (Dir d = new Dir(opened, e.rel())) {
            for (String name : names(d)) {
                PosixFileAttributes a = stat(d, name);
                Entry child = new Entry(d, name, d.child(name));
                if (a == null) {
                    continue;
                }
                if (a.isDirectory()) {
                    n += deleteTree(child);
                } else {
                    delete(child, false);
                    n++;
                }
            }
        }
        delete(e, true);
        return n;
    }

    private static RefusedException changed(String rel) {
        return new RefusedException("'" + Workspace.shown(rel) + "' changed while the tool ran (a link or another "
                + "kind of file took its place); the file tools do not follow it");
    }

    /** A failed operation, told with the path relative to the workspace and never an absolute one. */
    RefusedException failure(String what, String rel, IOException e) {
        String reason = switch (e) {
            case NoSuchFileException x -> "it does not exist";
            case AccessDeniedException x -> "permission denied";
            case DirectoryNotEmptyException x -> "the directory is not empty";
            case FileAlreadyExistsException x -> "it exists already";
            case FileSystemException x when x.getReason() != null -> x.getReason();
            default -> e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        };
        return new RefusedException("cannot " + what + " '" + Workspace.shown(rel) + "': " + ws.withoutRoot(reason));
    }

    @Override
    public void close() {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            try {
                toClose.get(i).close();
            } catch (IOException e) {
                // A directory handle that fails to close holds nothing to flush.
            }
        }
    }
}
