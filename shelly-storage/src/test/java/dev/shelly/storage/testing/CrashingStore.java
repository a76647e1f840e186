package dev.shelly.storage.testing;

import dev.shelly.chats.ShellyException;
import dev.shelly.storage.SessionRecord;
import dev.shelly.storage.spi.SessionStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A session store that stops where a killed process would: in front of a chosen journal entry.
 * From then on it writes nothing (no entry, no save, no delete), as if the process had died at
 * that point; what was written before stays in the store below, where a fresh store on the same
 * place (a second process) finds it. Closing a lease still lets the session go, as a dead
 * process's locks come free. Also keeps every entry that was written, in order, for tests of the
 * journal's order.
 */
public final class CrashingStore implements SessionStore {
    private final SessionStore store;
    private final ReentrantLock lock = new ReentrantLock();
    private final List<String> written = new ArrayList<>(); // guarded by lock
    private final List<Consumer<String>> onAppend = new CopyOnWriteArrayList<>();
    private volatile Predicate<String> crashBefore = entry -> false;
    private volatile int crashAt = -1;
    private volatile boolean dead;

    /**
     * A store over another.
     *
     * @param store the store below
     */
    public CrashingStore(SessionStore store) {
        this.store = store;
    }

    /**
     * Stops in front of the first entry that matches.
     *
     * @param entry which entry the process dies before
     * @return this store
     */
    public CrashingStore crashBefore(Predicate<String> entry) {
        this.crashBefore = entry;
        return this;
    }

    /**
     * Stops in front of the n-th entry appended (from 1).
     *
     * @param n the entry's number
     * @return this store
     */
    public CrashingStore crashBefore(int n) {
        this.crashAt = n;
        return this;
    }

    /**
     * Tells of each entry once it is written, in the order they are written (as the next step
     * would follow it).
     *
     * @param action what to do with the entry
     * @return this store
     */
    public CrashingStore afterEachEntry(Consumer<String> action) {
        onAppend.add(action);
        return this;
    }

    /** Stops now: nothing more is written. */
    public void crash() {
        dead = true;
    }

    /** {@return whether it stopped} */
    public boolean crashed() {
        return dead;
    }

    /** {@return the entries written, in order} */
    public List<String> written() {
        lock.lock();
        try {
            return List.copyOf(written);
        } finally {
            lock.unlock();
        }
    }

    private void alive(String what) {
        if (dead) {
            throw new ShellyException("the process died before it " + what);
        }
    }

    @Override
    public Lease open(String id, Duration wait) {
        alive("opened session " + id);
        Lease lease = store.open(id, wait);
        return new Lease() {
            @Override
            public String id() {
                return lease.id();
            }

            @Override
            public Optional<SessionRecord> load() {
                alive("loaded session " + id);
                return lease.load();
            }

            @Override
            public boolean save(SessionRecord record) {
                alive("saved session " + id);
                return lease.save(record);
            }

            @Override
            public void delete() {
                alive("deleted session " + id);
                lease.delete();
            }

            @Override
            public void append(String entry) {
                lock.lock();
                try {
                    alive("recorded " + entry);
                    if (crashBefore.test(entry) || written.size() + 1 == crashAt) {
                        dead = true;
                        alive("recorded " + entry);
                    }
                    lease.append(entry);
                    written.add(entry);
                    for (Consumer<String> action : onAppend) {
                        action.accept(entry);
                    }
                } finally {
                    lock.unlock();
                }
            }

            @Override
            public List<String> journal() {
                alive("read the journal of session " + id);
                return lease.journal();
            }

            @Override
            public void close() {
                lease.close();
            }
        };
    }

    @Override
    public List<String> ids() {
        return store.ids();
    }

    @Override
    public String toString() {
        return "CrashingStore[" + store + "]";
    }
}
