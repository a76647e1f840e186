package dev.shelly.engine.session;

import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * Which lock files this JVM is holding or waiting for.
 *
 * <p>File locks belong to the process, not to a channel: a second channel of the same JVM on a
 * locked file gets an {@code OverlappingFileLockException}, and on some systems closing any
 * channel on the file releases every lock the process holds on it. So within one JVM a lock file
 * is used by one holder at a time, and others wait here on a permit (without polling) before
 * they touch the file at all. This is the one piece of process-wide state in the engine: the
 * thing it guards is process-wide too. Entries are removed when nobody holds or waits for them.
 */
final class ProcessLocks {
    private static final ConcurrentHashMap<Path, Entry> LOCKS = new ConcurrentHashMap<>();

    private ProcessLocks() {}

    /** The permit of one lock file, and how many holders and waiters use it. */
    static final class Entry {
        final Semaphore permit = new Semaphore(1, true);
        private int users;
    }

    static Entry enter(Path lockFile) {
        return LOCKS.compute(lockFile, (k, e) -> {
            Entry entry = e == null ? new Entry() : e;
            entry.users++;
            return entry;
        });
    }

    static void leave(Path lockFile) {
        LOCKS.computeIfPresent(lockFile, (k, e) -> --e.users == 0 ? null : e);
    }

    static int size() {
        return LOCKS.size();
    }
}
