package dev.shelly.storage.spi;

import dev.shelly.storage.SessionBusyException;
import dev.shelly.storage.SessionNotFoundException;
import dev.shelly.storage.SessionRecord;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Where sessions are kept: the seam a backend (files, Redis, a database) implements. The engine
 * uses nothing else, so any store that keeps this contract keeps every turn of every session.
 *
 * <h2>The contract</h2>
 * <ul>
 *   <li><b>One holder per session.</b> {@link #open} hands out a {@link Lease}: while it is open
 *       nobody else — no other engine, no other process — holds the same session. A second
 *       {@code open} of the same id waits until the first lease is closed, at most for the time
 *       it is given, and then throws {@link SessionBusyException}. A lease whose holder dies (a
 *       killed process) must come free by itself: a file lock does, a Redis lease expires.
 *   <li><b>Load after holding.</b> {@link Lease#load()} returns what the last holder saved, every
 *       acknowledged save included. The engine loads only under a lease, so a session is never
 *       continued from a stale copy.
 *   <li><b>Saves in order.</b> {@link Lease#save} stores a record only when its
 *       {@linkplain SessionRecord#version() version} is higher than the stored one, atomically
 *       with the write; an older snapshot never replaces a newer one. A store whose lease can
 *       lapse (a time-to-live) must also refuse a save when the lease was lost, with
 *       {@link SessionBusyException}, rather than overwrite the turn of the next holder.
 *   <li><b>All or nothing.</b> A save is atomic: a crash leaves the previous record or the new
 *       one, never part of one, and never a record a later {@link Lease#load()} cannot read.
 *       Leftovers of interrupted saves are cleaned up by the store, never read as sessions.
 *   <li><b>The id is the key.</b> A record is stored and loaded under the id its lease was
 *       opened with; a record that says another id inside is the session of the key it is
 *       stored under.
 *   <li><b>Errors name one session.</b> A missing session is {@link SessionNotFoundException};
 *       no message of a store names a session other than the one asked for.
 *   <li><b>A journal per session.</b> While a turn runs, the engine records its steps with
 *       {@link Lease#append}: each entry is durable before {@code append} returns, so a step is
 *       on record before its effect goes on. The store tags each entry with the version of the
 *       record saved when it was appended, and {@link Lease#journal()} returns only the entries
 *       that follow the record saved now, oldest first: after a {@link Lease#save save} the
 *       journal is empty (the turn's steps are in the record), and entries a crash left behind
 *       between a save and the journal's removal are never read again. A last entry cut short by
 *       a crash (a torn line) is not returned. Stores written before journals may leave both
 *       methods throwing {@link UnsupportedOperationException}; the engine then keeps no journal.
 * </ul>
 *
 * <p>Implementations are safe for use by many threads.
 */
public interface SessionStore {

    /**
     * Holds a session for exclusive use, waiting for another holder to let go.
     *
     * @param id the session's id: 1 to 128 letters, digits, {@code '.'}, {@code '_'} and
     *     {@code '-'}, starting with a letter or digit, without {@code ".."}
     * @param wait how long to wait for another holder; zero to try once
     * @return the lease; close it to let others in
     * @throws SessionBusyException when the session is still held after the wait
     * @throws java.util.concurrent.CancellationException when the waiting thread is interrupted
     *     (the interrupt flag stays set)
     * @throws IllegalArgumentException when the id is not valid
     */
    Lease open(String id, Duration wait);

    /**
     * The ids of the saved sessions.
     *
     * @return the ids, sorted
     */
    List<String> ids();

    /**
     * What is saved under an id, read without holding the session: for looking at sessions (a
     * list of them), never for continuing one, since a holder may save a newer version at any
     * moment. By default the session is held for the moment it is read, so it cannot be read
     * while another holds it; a store that can read a record whole without holding it (the file
     * and Redis stores do) overrides this.
     *
     * @param id the session's id
     * @return the record, or empty when nothing is saved under the id
     * @throws SessionBusyException when the store must hold the session to read it and another
     *     holder has it
     * @throws dev.shelly.chats.ShellyException naming the session when the saved form cannot be read
     * @throws IllegalArgumentException when the id is not valid
     */
    default Optional<SessionRecord> peek(String id) {
        try (Lease lease = open(id, Duration.ZERO)) {
            return lease.load();
        }
    }

    /**
     * Deletes a saved session: holds it (waiting as {@link #open} does) and removes it.
     *
     * @param id the session's id
     * @param wait how long to wait for another holder
     * @throws SessionNotFoundException when there is no such session
     * @throws SessionBusyException when the session is still held after the wait
     */
    default void delete(String id, Duration wait) {
        try (Lease lease = open(id, wait)) {
            if (lease.load().isEmpty()) {
                throw new SessionNotFoundException(id);
            }
            lease.delete();
        }
    }

    /** One holder's exclusive hold on one session. Closing it twice is harmless. */
    interface Lease extends AutoCloseable {
        /**
         * The session held.
         *
         * @return its id
         */
        String id();

        /**
         * What is saved under this id, as the last holder left it.
         *
         * @return the record (under this lease's id), or empty when nothing is saved yet
         * @throws dev.shelly.chats.ShellyException naming the session when the saved form cannot be read
         * @throws IllegalStateException when the lease is closed
         */
        Optional<SessionRecord> load();

        /**
         * Saves a record when it is newer than the saved one; a save that writes also empties the
         * journal (the record holds what its entries recorded).
         *
         * @param record the record; its id must be this lease's
         * @return true when it was written; false when a record of the same or a higher version
         *     is saved already (the newer one stays)
         * @throws dev.shelly.chats.ShellyException naming the session when it cannot be written
         * @throws IllegalStateException when the lease is closed
         * @throws IllegalArgumentException when the record is of another session
         */
        boolean save(SessionRecord record);

        /**
         * Removes the saved session and its journal; a no-op when nothing is saved.
         *
         * @throws IllegalStateException when the lease is closed
         */
        void delete();

        /**
         * Appends one entry to the session's journal, durable before it returns (a file store
         * writes and syncs it; a shared store writes it in one atomic step that checks the lease).
         * The entry follows the record saved now; the next {@link #save} compacts it away.
         *
         * @param entry one compact JSON object, without a line break
         * @throws dev.shelly.chats.ShellyException naming the session when it cannot be written
         * @throws SessionBusyException when the lease was lost (a store whose lease can lapse); nothing
         *     was written
         * @throws IllegalStateException when the lease is closed
         * @throws IllegalArgumentException when the entry is null, blank or holds a line break
         * @throws UnsupportedOperationException when the store keeps no journal
         */
        default void append(String entry) {
            throw new UnsupportedOperationException(getClass().getName() + " keeps no journal");
        }

        /**
         * The entries appended since the record saved now, oldest first; empty after a save.
         * A torn last entry and entries that follow an older record are left out.
         *
         * @return the entries
         * @throws dev.shelly.chats.ShellyException naming the session when the journal cannot be read
         * @throws SessionBusyException when the lease was lost
         * @throws IllegalStateException when the lease is closed
         * @throws UnsupportedOperationException when the store keeps no journal
         */
        default List<String> journal() {
            throw new UnsupportedOperationException(getClass().getName() + " keeps no journal");
        }

        /** Lets the session go. */
        @Override
        void close();
    }
}
