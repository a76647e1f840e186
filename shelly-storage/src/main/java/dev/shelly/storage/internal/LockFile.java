package dev.shelly.storage.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lock file of a sessions folder, {@code .sessions.lock}: one operating-system lock per
 * session, on a one-byte region of the file at an offset from a hash of the session's id.
 *
 * <p>Why it is built so:
 * <ul>
 *   <li><b>One file, never removed.</b> A lock file per session would have to be removed some
 *       time, and a waiter that opened it before the removal would lock a file nobody else sees.
 *       Byte-range locks in one file that always exists have no such race; two ids whose hashes
 *       meet (a 62-bit hash) only wait for each other, they never share a lock.
 *   <li><b>One channel per JVM.</b> File locks belong to the process: on POSIX systems, closing
 *       any descriptor of the file releases every lock the process holds on it. So this JVM opens
 *       the file once, through a process-wide registry, and closes it only when none of its
 *       sessions is held or waited for.
 *   <li><b>One thread touches the channel.</b> A file channel is interruptible: an interrupt
 *       during an operation closes it, and that would release every session's lock at once. So
 *       every operation on the channel runs on one keeper thread that is never interrupted;
 *       callers wait for it interruptibly.
 *   <li><b>A permit per session within the JVM.</b> Holders of the same session in this JVM wait
 *       on a fair semaphore, without polling; only waits for another process poll the lock.
 * </ul>
 * This registry and the keeper thread are the file store's only process-wide state: what they
 * guard is process-wide too.
 */
public final class LockFile {
    private static final Logger LOG = LoggerFactory.getLogger(LockFile.class);
    private static final ConcurrentHashMap<Path, LockFile> OPEN = new ConcurrentHashMap<>();
    private static final ExecutorService KEEPER = Executors.newSingleThreadExecutor(
            Thread.ofVirtual().name("shelly-session-locks").factory());

    private final Path path;
    private final ConcurrentHashMap<String, Permit> permits = new ConcurrentHashMap<>();
    private int users; // guarded by OPEN.compute
    private FileChannel channel; // touched only on the keeper thread

    private LockFile(Path path) {
        this.path = path;
    }

    /** A session's permit in this JVM, and how many holders and waiters use it. */
    public static final class Permit {
        private final Semaphore semaphore = new Semaphore(1, true);
        private int users;

        private Permit() {}

        /**
         * Waits for the permit, fairly and without polling.
         *
         * @param nanos how long at most
         * @return true when it was given
         * @throws InterruptedException when the waiting thread is interrupted
         */
        public boolean tryAcquire(long nanos) throws InterruptedException {
            return semaphore.tryAcquire(nanos, TimeUnit.NANOSECONDS);
        }

        /** Gives the permit back, to the next waiter in this JVM. */
        public void release() {
            semaphore.release();
        }
    }

    /**
     * Starts using the lock file of a folder: for one open of one session.
     *
     * @param path the lock file
     * @return the lock file, shared by every user in this JVM
     */
    public static LockFile enter(Path path) {
        return OPEN.compute(path, (k, f) -> {
            LockFile file = f == null ? new LockFile(k) : f;
            file.users++;
            return file;
        });
    }

    /** Ends one use; the last one closes the channel (on the keeper, after every release queued before). */
    public void leave() {
        OPEN.computeIfPresent(path, (k, f) -> {
            if (--f.users > 0) {
                return f;
            }
            KEEPER.execute(f::closeChannel);
            return null;
        });
    }

    /**
     * Starts using a session's permit in this JVM.
     *
     * @param id the session
     * @return its permit
     */
    public Permit enterPermit(String id) {
        return permits.compute(id, (k, p) -> {
            Permit permit = p == null ? new Permit() : p;
            permit.users++;
            return permit;
        });
    }

    /**
     * Ends one use of a session's permit; the last one forgets it.
     *
     * @param id the session
     */
    public void leavePermit(String id) {
        permits.computeIfPresent(id, (k, p) -> --p.users == 0 ? null : p);
    }

    /**
     * Tries once to lock a session's byte.
     *
     * @param id the session
     * @return the lock, or null when another process (or, for a hash collision, another session
     *     of this JVM) holds it
     * @throws IOException when the lock file cannot be opened or locked
     */
    public FileLock tryLock(String id) throws IOException {
        long position = position(id);
        Future<FileLock> attempt = KEEPER.submit(() -> {
            if (channel == null || !channel.isOpen()) {
                channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            }
            try {
                return channel.tryLock(position, 1, false);
            } catch (OverlappingFileLockException e) {
                return null;
            }
        });
        try {
            return attempt.get();
        } catch (InterruptedException e) {
            // The attempt may still succeed: let the keeper release what it got, after it.
            KEEPER.execute(() -> {
                try {
                    FileLock got = attempt.resultNow();
                    if (got != null) {
                        got.release();
                    }
                } catch (IllegalStateException | IOException ignored) {
                    // the attempt failed or the lock is gone: nothing to release
                }
            });
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while locking session '" + id + "'");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IllegalStateException("locking session '" + id + "' failed: " + e.getCause(), e.getCause());
        }
    }

    /**
     * Releases a lock; queued on the keeper, ahead of any later attempt.
     *
     * @param id the session
     * @param lock its lock
     */
    public void release(String id, FileLock lock) {
        KEEPER.execute(() -> {
            try {
                lock.release();
            } catch (IOException e) {
                LOG.debug("releasing the lock of session '{}' failed: {}", id, e.getMessage());
            }
        });
    }

    private void closeChannel() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                LOG.debug("closing {} failed: {}", path, e.getMessage());
            }
            channel = null;
        }
    }

    /**
     * How many lock files this JVM has open (for tests: none once nothing is held).
     *
     * @return the count
     */
    public static int openCount() {
        return OPEN.size();
    }

    private static long position(String id) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.UTF_8));
            long v = 0;
            for (int i = 0; i < 8; i++) {
                v = (v << 8) | (h[i] & 0xff);
            }
            return v & 0x3FFF_FFFF_FFFF_FFFFL;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
