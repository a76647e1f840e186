package dev.shelly.storage.spi;

import dev.shelly.chats.ShellyException;
import dev.shelly.storage.SessionBusyException;
import dev.shelly.storage.SessionNotFoundException;
import dev.shelly.storage.SessionRecord;
import dev.shelly.storage.internal.ChatJson;
import dev.shelly.storage.internal.JournalFile;
import dev.shelly.storage.internal.JournalLines;
import dev.shelly.storage.internal.LeaseState;
import dev.shelly.storage.internal.LeaseWait;
import dev.shelly.storage.internal.LockFile;
import dev.shelly.storage.internal.SessionIds;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Keeps sessions as JSON files in one folder, {@code <id>.json} each; the {@link SessionStore}
 * contract holds across threads, engines and processes that share the folder.
 *
 * <ul>
 *   <li><b>Holding</b> is an operating-system lock, taken when a lease opens and released when it
 *       closes, on the session's own byte of the folder's one lock file {@code .sessions.lock}
 *       (never removed); a killed process loses its locks at once. Waiting for another process
 *       polls the lock (every 1 to 10 ms, up to the time given), which is not fair: a process
 *       that opens and closes one session in a tight loop can keep another waiting until its
 *       wait runs out. Waiting for another holder in the same JVM is fair and does not poll.
 *   <li><b>A save</b> writes a temporary file {@code .<id>-<n>.tmp} in the folder, forces it to
 *       disk and renames it over {@code <id>.json} in one atomic step, so a crash leaves the old
 *       file or the new one, never half of one. The leftovers of saves that a crash cut short,
 *       are removed when a store is made on the folder
 *       (for sessions nobody holds at that moment).
 *   <li><b>The id is the file name.</b> The {@code id} written inside a file is informational: a
 *       file copied to {@code b.json} is session {@code b}, and its next save writes {@code b}
 *       inside. Copying a file is how a conversation is forked.
 *   <li><b>The journal</b> of a session is {@code <id>.journal} beside its file: one line per
 *       entry, {@code <version>\t<crc32>\t<entry>}, written and synced to disk
 *       ({@code fsync}) before {@link Lease#append} returns. A save deletes it after the atomic
 *       move of the record; a crash between the two leaves lines of an older version, which are
 *       never read again. A line a crash cut short is not read, and the next append cuts it off.
 *   <li>Files saved before versions were kept load as version 0, their usage the sum of the
 *       usage their replies carry. Files saved before costs were kept load with a zero cost.
 * </ul>
 */
public final class FileSessionStore implements SessionStore {
    private static final Logger LOG = LoggerFactory.getLogger(FileSessionStore.class);
    private static final String SUFFIX = ".json";
    private static final String JOURNAL_SUFFIX = ".journal";
    private static final String TMP_SUFFIX = ".tmp";
    private static final String LOCK_FILE = ".sessions.lock";
    private static final long MAX_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final Path dir;
    private final JsonMapper json;
    private final ChatJson codec;

    /**
     * A store in a folder (created on the first save), writing sessions with a plain Jackson
     * mapper: what the engine uses. Removes the temporary files of saves that a crash cut short,
     * for every session nobody holds now.
     *
     * <pre>{@code
     * SessionStore sessions = FileSessionStore.in(Path.of(".shelly/sessions"));
     * }</pre>
     *
     * @param dir the sessions folder
     * @return the store
     * @throws ShellyException naming the folder when it exists but cannot be listed
     */
    public static FileSessionStore in(Path dir) {
        if (dir == null) {
            throw new IllegalArgumentException("FileSessionStore.in dir must not be null");
        }
        return new FileSessionStore(dir, JsonMapper.builder().build());
    }

    /**
     * A store in a folder (created on the first save), writing sessions with a mapper of your
     * own; {@link #in(Path)} takes a plain one. Removes the temporary files of saves that a crash
     * cut short, for every session nobody holds now.
     *
     * @param dir the sessions folder
     * @param json a Jackson 3 {@code JsonMapper}; the session codec needs no module or setting of it
     * @throws ShellyException naming the folder when it exists but cannot be listed
     */
    public FileSessionStore(Path dir, JsonMapper json) {
        if (dir == null || json == null) {
            throw new IllegalArgumentException("FileSessionStore needs a folder and a JSON mapper");
        }
        this.dir = dir.toAbsolutePath().normalize();
        this.json = json;
        this.codec = new ChatJson(json);
        removeLeftovers();
    }

    /**
     * The folder sessions are saved in.
     *
     * @return the folder
     */
    public Path dir() {
        return dir;
    }

    @Override
    public Lease open(String id, Duration wait) {
        LeaseWait waiting = LeaseWait.start("FileSessionStore", id, wait);
        LockFile file = LockFile.enter(lockFile());
        LockFile.Permit permit = file.enterPermit(id);
        boolean permitted = false;
        try {
            try {
                permitted = permit.tryAcquire(waiting.totalNanos());
            } catch (InterruptedException e) {
                throw waiting.interrupted();
            }
            if (!permitted) {
                throw waiting.busy();
            }
            return new FileLease(id, file, permit, lockOnDisk(waiting, file));
        } catch (RuntimeException | Error e) {
            if (permitted) {
                permit.release();
            }
            file.leavePermit(id);
            file.leave();
            throw e;
        }
    }

    private FileLock lockOnDisk(LeaseWait waiting, LockFile file) {
        String id = waiting.id();
        long pause = TimeUnit.MILLISECONDS.toNanos(1);
        while (true) {
            try {
                Files.createDirectories(dir);
                FileLock lock = file.tryLock(id);
                if (lock != null) {
                    return lock;
                }
            } catch (IOException e) {
                throw new ShellyException("cannot lock session '" + id + "' in " + dir + ": " + e.getMessage(), e);
            }
            long left = waiting.leftNanos();
            if (left <= 0) {
                throw waiting.busy();
            }
            try {
                TimeUnit.NANOSECONDS.sleep(Math.min(pause, left));
            } catch (InterruptedException e) {
                throw waiting.interrupted();
            }
            pause = Math.min(pause * 2, MAX_POLL_NANOS);
        }
    }

    @Override
    public List<String> ids() {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            List<String> ids = new ArrayList<>();
            files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(SUFFIX) && !n.startsWith("."))
                    .map(n -> n.substring(0, n.length() - SUFFIX.length()))
                    .filter(SessionIds::isValid)
                    .forEach(ids::add);
            ids.sort(null);
            return ids;
        } catch (IOException e) {
            throw new ShellyException("cannot list sessions in " + dir + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads a saved session without holding it: for looking, not for continuing (a holder may
     * save a newer version at any moment).
     *
     * @param id the session's id
     * @return the session, under the id of its file name
     * @throws SessionNotFoundException when there is no such session
     * @throws ShellyException naming the file when it is not a valid session
     */
    public SessionRecord read(String id) {
        SessionIds.check(id, "FileSessionStore.read id");
        return readFile(id).orElseThrow(() -> new SessionNotFoundException(id));
    }

    /** Reads the file without holding the session: a save replaces it whole, so a read sees one version. */
    @Override
    public Optional<SessionRecord> peek(String id) {
        return readFile(SessionIds.check(id, "FileSessionStore.peek id"));
    }

    private Optional<SessionRecord> readFile(String id) {
        Path file = file(id);
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new ShellyException("cannot read session file " + file + ": " + e.getMessage(), e);
        }
        try {
            return Optional.of(codec.decodeRecord(id, json.readTree(text), file.toString()));
        } catch (JacksonException | IllegalArgumentException | java.time.format.DateTimeParseException e) {
            throw new ShellyException("session file " + file + " is not a valid session: " + e.getMessage(), e);
        }
    }

    private void write(SessionRecord session) {
        Path target = file(session.id());
        ObjectNode root = codec.encodeRecord(session);
        byte[] bytes = json.writerWithDefaultPrettyPrinter().writeValueAsString(root).getBytes(StandardCharsets.UTF_8);
        Path tmp = null;
        // An interrupted thread cannot write a file channel: the save runs with the flag cleared.
        boolean interrupted = Thread.interrupted();
        try {
            Files.createDirectories(dir);
            tmp = Files.createTempFile(dir, "." + session.id() + "-", TMP_SUFFIX);
            try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE);
                    OutputStream out = Channels.newOutputStream(channel)) {
                out.write(bytes);
                out.flush();
                channel.force(true);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
        } catch (IOException e) {
            throw new ShellyException("cannot save session '" + session.id() + "' to " + target + ": " + e.getMessage(), e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // left behind; never read as a session, and removed when the next store starts
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Removes the temporary files of cut-short saves of sessions nobody holds. */
    private void removeLeftovers() {
        if (!Files.isDirectory(dir)) {
            return;
        }
        List<Path> tmps = new ArrayList<>();
        TreeSet<String> ids = new TreeSet<>();
        try (Stream<Path> files = Files.list(dir)) {
            files.forEach(p -> {
                String n = p.getFileName().toString();
                if (!n.startsWith(".")) {
                    return;
                }
                if (n.endsWith(TMP_SUFFIX)) {
                    int dash = n.lastIndexOf('-');
                    if (dash > 1 && SessionIds.isValid(n.substring(1, dash))) {
                        tmps.add(p);
                        ids.add(n.substring(1, dash));
                    }
                }
            });
        } catch (IOException e) {
            throw new ShellyException("cannot list sessions in " + dir + ": " + e.getMessage(), e);
        }
        int removed = 0;
        for (String id : ids) {
            Lease lease;
            try {
                lease = open(id, Duration.ZERO);
            } catch (SessionBusyException e) {
                continue; // held: its holder's save may be running right now
            }
            try (lease) {
                for (Path tmp : tmps) {
                    String n = tmp.getFileName().toString();
                    if (n.substring(1, n.lastIndexOf('-')).equals(id)) {
                        try {
                            if (Files.deleteIfExists(tmp)) {
                                removed++;
                            }
                        } catch (IOException e) {
                            LOG.warn("cannot remove the leftover temporary file {}: {}", tmp, e.getMessage());
                        }
                    }
                }
            }
        }
        if (removed > 0) {
            LOG.info("removed {} temporary files of session saves a crash cut short in {}", removed, dir);
        }
    }

    private Path file(String id) {
        return dir.resolve(id + SUFFIX);
    }

    private Path lockFile() {
        return dir.resolve(LOCK_FILE);
    }

    @Override
    public String toString() {
        return "FileSessionStore[" + dir + "]";
    }

    /** A held session: its permit in this JVM, its lock in the lock file, and the version saved last. */
    private final class FileLease implements Lease {
        private final LeaseState state;
        private final LockFile file;
        private final LockFile.Permit permit;
        private final FileLock lock;
        private final JournalFile journal;
        private long storedVersion; // guarded by state
        private boolean versionKnown; // guarded by state

        FileLease(String id, LockFile file, LockFile.Permit permit, FileLock lock) {
            this.state = new LeaseState("FileSessionStore", id);
            this.file = file;
            this.permit = permit;
            this.lock = lock;
            this.journal = new JournalFile(dir.resolve(id + JOURNAL_SUFFIX), id);
        }

        /** The version saved now, read once per lease. Called under the state's lock. */
        private long storedVersion() {
            if (!versionKnown) {
                storedVersion = readFile(id()).map(SessionRecord::version).orElse(-1L);
                versionKnown = true;
            }
            return storedVersion;
        }

        @Override
        public String id() {
            return state.id();
        }

        @Override
        public Optional<SessionRecord> load() {
            return state.whileOpen(() -> {
                Optional<SessionRecord> record = readFile(id());
                storedVersion = record.map(SessionRecord::version).orElse(-1L);
                versionKnown = true;
                return record;
            });
        }

        @Override
        public boolean save(SessionRecord record) {
            state.savable(record);
            return state.whileOpen(() -> {
                if (record.version() <= storedVersion()) {
                    return false;
                }
                write(record);
                storedVersion = record.version();
                try {
                    journal.delete();
                } catch (ShellyException e) {
                    // Its lines follow an older version now and are never read again.
                    LOG.warn("{}; its entries are superseded by the record saved", e.getMessage());
                }
                return true;
            });
        }

        @Override
        public void append(String entry) {
            JournalLines.check(id(), entry);
            state.whileOpen(() -> {
                journal.append(storedVersion(), entry);
                return null;
            });
        }

        @Override
        public List<String> journal() {
            return state.whileOpen(() -> journal.read(storedVersion()));
        }

        @Override
        public void delete() {
            state.whileOpen(() -> {
                try {
                    Files.deleteIfExists(file(id()));
                } catch (IOException e) {
                    throw new ShellyException("cannot delete session '" + id() + "' in " + dir + ": " + e.getMessage(), e);
                }
                journal.delete();
                storedVersion = -1;
                versionKnown = true;
                return null;
            });
        }

        @Override
        public void close() {
            // Queued on the lock file's keeper ahead of any later attempt, so the next holder
            // in this JVM (let in by the permit) and in other processes finds it free.
            state.close(() -> {
                journal.close();
                file.release(id(), lock);
                permit.release();
                file.leavePermit(id());
                file.leave();
            });
        }

        @Override
        public String toString() {
            return state.toString();
        }
    }
}
