package dev.shelly.storage.internal;

import dev.shelly.storage.SessionRecord;
import dev.shelly.storage.spi.SessionStore;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The bookkeeping of one open {@link SessionStore.Lease}, whatever holds the session: the calls
 * on a lease run one at a time, each refused once the lease is closed, a save of another
 * session's record is refused, and closing lets the session go exactly once. A store's lease
 * keeps one and does only its own work (reading, writing, releasing) inside it.
 *
 * <p>Thread-safe. Uses a {@link ReentrantLock}, never a monitor, so a virtual thread that waits
 * for a slow save does not pin its carrier.
 */
public final class LeaseState {
    private final String store;
    private final String id;
    private final ReentrantLock guard = new ReentrantLock();
    private volatile boolean closed; // written under guard; read by toString without it

    /**
     * The state of a lease just opened.
     *
     * @param store the store's name, for {@link #toString()} (e.g. {@code "FileSessionStore"})
     * @param id the session held
     */
    public LeaseState(String store, String id) {
        if (store == null || id == null) {
            throw new IllegalArgumentException("LeaseState needs a store and an id, got " + store + " and " + id);
        }
        this.store = store;
        this.id = id;
    }

    /**
     * The session held.
     *
     * @return its id
     */
    public String id() {
        return id;
    }

    /**
     * Runs a call of the lease, after any other call of it, when the lease is still open.
     *
     * @param <T> what the call returns
     * @param call the store's work
     * @return what the call returned
     * @throws IllegalStateException when the lease is closed
     */
    public <T> T whileOpen(Supplier<T> call) {
        if (call == null) {
            throw new IllegalArgumentException("LeaseState.whileOpen call must not be null");
        }
        guard.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the lease of session '" + id + "' is closed");
            }
            return call.get();
        } finally {
            guard.unlock();
        }
    }

    /**
     * Checks that a record may be saved under this lease: it is of this session.
     *
     * @param record the record to save
     * @return the record
     * @throws IllegalArgumentException when the record is null or of another session
     */
    public SessionRecord savable(SessionRecord record) {
        if (record == null || !record.id().equals(id)) {
            throw new IllegalArgumentException("the lease of session '" + id + "' cannot save "
                    + (record == null ? "null" : "another session"));
        }
        return record;
    }

    /**
     * Closes the lease: the first call marks it closed and runs {@code release}, after any call
     * of the lease still running; later calls do nothing.
     *
     * @param release how the store lets the session go
     */
    public void close(Runnable release) {
        if (release == null) {
            throw new IllegalArgumentException("LeaseState.close release must not be null");
        }
        guard.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            release.run();
        } finally {
            guard.unlock();
        }
    }

    @Override
    public String toString() {
        return store + ".Lease[" + id + (closed ? ", closed" : "") + "]";
    }
}
