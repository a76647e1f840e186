package dev.shelly.state;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import tools.jackson.databind.JsonNode;

/**
 * The default {@link StateBackend}: entries in a map of this process, guarded by a read/write
 * lock, with a {@link ChangeSignal} for watchers. Thread-safe.
 *
 * <p>It keeps the nodes it is given and returns them as they are; the {@link Store} copies on
 * both sides. Code that uses this backend directly must not change the nodes it passes or gets.
 */
public final class InMemoryStateBackend implements StateBackend {
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Map<String, Entry> entries = new HashMap<>();
    private final ChangeSignal signal = new ChangeSignal();
    private long lastVersion;

    /** An empty backend. */
    public InMemoryStateBackend() {}

    @Override
    public Optional<Entry> get(String key) {
        requireKey(key, "get");
        lock.readLock().lock();
        try {
            return Optional.ofNullable(entries.get(key));
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public List<String> keys() {
        lock.readLock().lock();
        try {
            return List.copyOf(entries.keySet());
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public List<Entry> entries() {
        lock.readLock().lock();
        try {
            return List.copyOf(entries.values());
        } finally {
            lock.readLock().unlock();
        }
    }

    private static void requireKey(String key, String method) {
        if (key == null) {
            throw new IllegalArgumentException("InMemoryStateBackend." + method + " key must not be null");
        }
    }

    @Override
    public long put(String key, JsonNode value) {
        long version;
        lock.writeLock().lock();
        try {
            version = ++lastVersion;
            entries.put(key, new Entry(key, value, version));
        } finally {
            lock.writeLock().unlock();
        }
        signal.bump();
        return version;
    }

    @Override
    public boolean compareAndSet(String key, long expectedVersion, JsonNode value) {
        requireKey(key, "compareAndSet");
        if (value == null) {
            throw new IllegalArgumentException("InMemoryStateBackend.compareAndSet value must not be null");
        }
        lock.writeLock().lock();
        try {
            Entry current = entries.get(key);
            long currentVersion = current == null ? 0 : current.version();
            if (currentVersion != expectedVersion) {
                return false;
            }
            entries.put(key, new Entry(key, value, ++lastVersion));
        } finally {
            lock.writeLock().unlock();
        }
        signal.bump();
        return true;
    }

    @Override
    public boolean remove(String key) {
        requireKey(key, "remove");
        lock.writeLock().lock();
        try {
            if (entries.remove(key) == null) {
                return false;
            }
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
            return "InMemoryStateBackend[" + entries.size() + " keys]";
        } finally {
            lock.readLock().unlock();
        }
    }
}
