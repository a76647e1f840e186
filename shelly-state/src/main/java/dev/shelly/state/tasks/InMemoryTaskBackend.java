package dev.shelly.state.tasks;

import dev.shelly.state.ChangeSignal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The default {@link TaskBackend}: tasks in a map of this process, guarded by a read/write lock,
 * with a {@link ChangeSignal} for watchers. Thread-safe.
 */
public final class InMemoryTaskBackend implements TaskBackend {
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Map<String, Task> tasks = new LinkedHashMap<>();
    private final AtomicLong sequence = new AtomicLong();
    private final ChangeSignal signal = new ChangeSignal();

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
        lock.writeLock().lock();
        try {
            if (tasks.putIfAbsent(task.id(), task) != null) {
                return false;
            }
        } finally {
            lock.writeLock().unlock();
        }
        signal.bump();
        return true;
    }

    @Override
    public Optional<Task> get(String id) {
        if (id == null) {
            throw new IllegalArgumentException("InMemoryTaskBackend.get id must not be null");
        }
        lock.readLock().lock();
        try {
            return Optional.ofNullable(tasks.get(id));
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public List<Task> all() {
        lock.readLock().lock();
        try {
            return List.copyOf(tasks.values());
        } finally {
            lock.readLock().unlock();
        }
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
                    + (expected == null ? null : expected.id()) + " and " + (next == null ? null : next.id()));
        }
        lock.writeLock().lock();
        try {
            if (!expected.equals(tasks.get(expected.id()))) {
                return false;
            }
            tasks.put(next.id(), next);
        } finally {
            lock.writeLock().unlock();
        }
        signal.bump();
        return true;
    }

    @Override
    public long revision() {
        return signal.revision();
    }

    @Override
    public long awaitChange(long seen, Duration timeout) throws InterruptedException {
        return signal.awaitChange(seen, timeout);
    }

    @Override
    public String toString() {
        lock.readLock().lock();
        try {
            return "InMemoryTaskBackend[" + tasks.size() + " tasks]";
        } finally {
            lock.readLock().unlock();
        }
    }
}
