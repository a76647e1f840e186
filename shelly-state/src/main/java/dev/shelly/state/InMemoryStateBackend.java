package dev.shelly.state;

import dev.shelly.state.spi.VersionedCells;
import dev.shelly.state.spi.WatchedCells;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * The default {@link StateBackend}: entries in {@link VersionedCells} of this process, whose one
 * compare-and-set (a test and a write under one lock) every write goes through. Thread-safe.
 *
 * <p>It keeps the nodes it is given and returns them as they are; the {@link Store} copies on
 * both sides. Code that uses this backend directly must not change the nodes it passes or gets.
 */
public final class InMemoryStateBackend implements StateBackend, WatchedCells {
    private final VersionedCells<JsonNode> cells = new VersionedCells<>();

    /** An empty backend. */
    public InMemoryStateBackend() {}

    @Override
    public Optional<Entry> get(String key) {
        requireKey(key, "get");
        return cells.get(key).map(InMemoryStateBackend::entry);
    }

    @Override
    public List<String> keys() {
        return cells.cells().stream().map(VersionedCells.Cell::key).toList();
    }

    @Override
    public List<Entry> entries() {
        return cells.cells().stream().map(InMemoryStateBackend::entry).toList();
    }

    private static Entry entry(VersionedCells.Cell<JsonNode> cell) {
        return new Entry(cell.key(), cell.value(), cell.version());
    }

    private static void requireKey(String key, String method) {
        if (key == null) {
            throw new IllegalArgumentException("InMemoryStateBackend." + method + " key must not be null");
        }
    }

    private static void requireValue(JsonNode value, String method) {
        if (value == null) {
            throw new IllegalArgumentException("InMemoryStateBackend." + method + " value must not be null");
        }
    }

    @Override
    public long put(String key, JsonNode value) {
        requireKey(key, "put");
        requireValue(value, "put");
        return cells.compareAndSet(key, stored -> true, value);
    }

    @Override
    public boolean compareAndSet(String key, long expectedVersion, JsonNode value) {
        requireKey(key, "compareAndSet");
        requireValue(value, "compareAndSet");
        return cells.compareAndSet(key, VersionedCells.atVersion(expectedVersion), value) != 0;
    }

    @Override
    public boolean remove(String key) {
        requireKey(key, "remove");
        return cells.remove(key);
    }

    @Override
    public Watchable changes() {
        return cells.changes();
    }

    @Override
    public String toString() {
        return "InMemoryStateBackend[" + cells + "]";
    }
}
