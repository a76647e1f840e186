package dev.shelly.benchmarks.durable;

import dev.shelly.storage.SessionBusyException;
import dev.shelly.storage.SessionRecord;
import dev.shelly.storage.spi.SessionStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Sessions in memory, with or without a journal: what the engine's own work costs when keeping a
 * session costs next to nothing. A hold is a permit (a lease may be closed on another thread than
 * the one that opened it).
 */
final class MemorySessionStore implements SessionStore {
    private final boolean journal;
    private final Map<String, SessionRecord> saved = new ConcurrentHashMap<>();
    private final Map<String, List<String>> journals = new ConcurrentHashMap<>();
    private final Map<String, Semaphore> holds = new ConcurrentHashMap<>();

    MemorySessionStore(boolean journal) {
        this.journal = journal;
    }

    @Override
    public Lease open(String id, Duration wait) {
        Semaphore hold = holds.computeIfAbsent(id, k -> new Semaphore(1));
        try {
            if (!hold.tryAcquire(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new SessionBusyException(id, "session " + id + " is held by another lease");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while waiting for session " + id);
        }
        return new Held(id, hold);
    }

    @Override
    public List<String> ids() {
        return saved.keySet().stream().sorted().toList();
    }

    private final class Held implements Lease {
        private final String id;
        private final Semaphore hold;
        private boolean closed;

        Held(String id, Semaphore hold) {
            this.id = id;
            this.hold = hold;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public Optional<SessionRecord> load() {
            return Optional.ofNullable(saved.get(id));
        }

        @Override
        public boolean save(SessionRecord record) {
            SessionRecord before = saved.get(id);
            if (before != null && before.version() >= record.version()) {
                return false;
            }
            saved.put(id, record);
            journals.remove(id);
            return true;
        }

        @Override
        public void delete() {
            saved.remove(id);
            journals.remove(id);
        }

        @Override
        public void append(String entry) {
            if (!journal) {
                throw new UnsupportedOperationException("this store keeps no journal");
            }
            journals.computeIfAbsent(id, k -> new ArrayList<>()).add(entry);
        }

        @Override
        public List<String> journal() {
            if (!journal) {
                throw new UnsupportedOperationException("this store keeps no journal");
            }
            return List.copyOf(journals.getOrDefault(id, List.of()));
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                hold.release();
            }
        }
    }
}
