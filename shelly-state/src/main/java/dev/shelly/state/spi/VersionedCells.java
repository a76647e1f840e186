package dev.shelly.state.spi;

import dev.shelly.state.ChangeSignal;
import dev.shelly.state.Watchable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Predicate;

/**
 * Versioned compare-and-set in this process: values under keys, each stamped with the version of
 * the write that stored it, written only when what is stored now passes the caller's test. The
 * in-memory blackboard and task board are both built on it, so the rule is written once: the
 * test and the write happen under one lock, so of many concurrent writers expecting the same
 * cell at most one wins; versions come from one counter for all keys, so a key removed and
 * written again never repeats a version; watchers wake after the write is visible.
 *
 * <p>{@link #cells()} lists the cells in the order their keys were first written (a key that is
 * rewritten keeps its place; one removed and written again goes last). Values are kept and
 * returned as they are given. Thread-safe.
 *
 * @param <V> the values
 */
public final class VersionedCells<V> {
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Map<String, Cell<V>> cells = new LinkedHashMap<>();
    private final ChangeSignal signal = new ChangeSignal();
    private long lastVersion;

    /**
     * One stored value.
     *
     * @param <V> the value's type
     * @param key its key
     * @param value the value
     * @param version the version of the write that stored it, above 0
     */
    public record Cell<V>(String key, V value, long version) {
        /** Validates the fields. */
        public Cell {
            if (key == null || value == null) {
                throw new IllegalArgumentException("VersionedCells.Cell needs a key and a value");
            }
            if (version <= 0) {
                throw new IllegalArgumentException("VersionedCells.Cell.version of '" + key + "' must be above 0, was "
                        + version);
            }
        }
    }

    /** No cells, at version 0. */
    public VersionedCells() {}

    /**
     * The cell under a key.
     *
     * @param key the key
     * @return the cell, or empty when the key is absent
     */
    public Optional<Cell<V>> get(String key) {
        if (key == null) {
            throw new IllegalArgumentException("VersionedCells.get key must not be null");
        }
        lock.readLock().lock();
        try {
            return Optional.ofNullable(cells.get(key));
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Every cell, as one consistent snapshot, in the order the keys were first written.
     *
     * @return the cells
     */
    public List<Cell<V>> cells() {
        lock.readLock().lock();
        try {
            return List.copyOf(cells.values());
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Writes a value when what is stored under its key passes a test, decided atomically with the
     * write.
     *
     * @param key the key
     * @param expected the test: given the cell stored now (empty when the key is absent), whether
     *     to write; it runs under the lock, so it must be quick and must not touch these cells
     * @param value the value to store
     * @return the version of this write, or 0 when the test refused it
     */
    public long compareAndSet(String key, Predicate<Optional<Cell<V>>> expected, V value) {
        if (key == null || expected == null || value == null) {
            throw new IllegalArgumentException("VersionedCells.compareAndSet needs a key, an expected test and a value, got "
                    + key + ", " + expected + " and " + value);
        }
        long version;
        lock.writeLock().lock();
        try {
            if (!expected.test(Optional.ofNullable(cells.get(key)))) {
                return 0;
            }
            version = ++lastVersion;
            cells.put(key, new Cell<>(key, value, version));
        } finally {
            lock.writeLock().unlock();
        }
        signal.bump();
        return version;
    }

    /**
     * Removes a key.
     *
     * @param key the key
     * @return true when the key was present
     */
    public boolean remove(String key) {
        if (key == null) {
            throw new IllegalArgumentException("VersionedCells.remove key must not be null");
        }
        lock.writeLock().lock();
        try {
            if (cells.remove(key) == null) {
                return false;
            }
        } finally {
            lock.writeLock().unlock();
        }
        signal.bump();
        return true;
    }

    /**
     * A test that passes when the stored version is the given one.
     *
     * @param <V> the values
     * @param version the version the caller read, or 0 for "absent"
     * @return the test
     */
    public static <V> Predicate<Optional<Cell<V>>> atVersion(long version) {
        return stored -> stored.map(Cell::version).orElse(0L) == version;
    }

    /**
     * A test that passes when the stored value equals the given one.
     *
     * @param <V> the values
     * @param value the value the caller read
     * @return the test
     */
    public static <V> Predicate<Optional<Cell<V>>> holding(V value) {
        if (value == null) {
            throw new IllegalArgumentException("VersionedCells.holding value must not be null");
        }
        return stored -> stored.isPresent() && value.equals(stored.get().value());
    }

    /**
     * What watchers wait on: its revision is raised by every write that landed, after the write is
     * visible.
     *
     * @return the changes of these cells
     */
    public Watchable changes() {
        return signal;
    }

    @Override
    public String toString() {
        lock.readLock().lock();
        try {
            return cells.size() + " cells at version " + lastVersion;
        } finally {
            lock.readLock().unlock();
        }
    }
}
