package dev.shelly.state.tasks;

import dev.shelly.state.Watchable;
import dev.shelly.state.spi.VersionedCells;
import dev.shelly.state.spi.WatchedCells;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The default {@link TaskBackend}: tasks in {@link VersionedCells} of this process, whose one
 * compare-and-set (a test and a write under one lock) inserts and replaces go through; the cells
 * keep the tasks in insertion order. Thread-safe.
 */
public final class InMemoryTaskBackend implements TaskBackend, WatchedCells {
    private final VersionedCells<Task> tasks = new VersionedCells<>();
    private final AtomicLong sequence = new AtomicLong();

    /** An empty backend. */
    public InMemoryTaskBackend() {}

    @Override
    public long nextSequence() {
        return sequence.incrementAndGet();
    }

    @Override
    public boolean insert(Task task) {
        if (task == null) {
            throw new IllegalArgumentException("InMemoryTaskBackend.insert task must not be null");
        }
        return tasks.compareAndSet(task.id(), Optional::isEmpty, task) != 0;
    }

    @Override
    public Optional<Task> get(String id) {
        if (id == null) {
            throw new IllegalArgumentException("InMemoryTaskBackend.get id must not be null");
        }
        return tasks.get(id).map(VersionedCells.Cell::value);
    }

    @Override
    public List<Task> all() {
        return tasks.cells().stream().map(VersionedCells.Cell::value).toList();
    }

    @Override
    public boolean replace(Task expected, Task next) {
        if (expected == null) {
            throw new IllegalArgumentException("InMemoryTaskBackend.replace expected must not be null");
        }
        if (next == null) {
            throw new IllegalArgumentException("InMemoryTaskBackend.replace next must not be null");
        }
        if (!expected.id().equals(next.id())) {
            throw new IllegalArgumentException("InMemoryTaskBackend.replace needs two tasks with the same id, got "
                    + expected.id() + " and " + next.id());
        }
        return tasks.compareAndSet(next.id(), VersionedCells.holding(expected), next) != 0;
    }

    @Override
    public Watchable changes() {
        return tasks.changes();
    }

    @Override
    public String toString() {
        return "InMemoryTaskBackend[" + tasks + "]";
    }
}
