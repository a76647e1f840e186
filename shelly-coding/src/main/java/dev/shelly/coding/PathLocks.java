package dev.shelly.coding;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One lock per resolved path: two calls that change the same file run one after the other.
 * Several paths are locked in their natural order, so two calls never wait on each other.
 */
final class PathLocks {
    private final ConcurrentHashMap<Path, ReentrantLock> locks = new ConcurrentHashMap<>();

    /** Locks the paths; close the result to unlock them. */
    AutoCloseable lock(List<Path> paths) throws InterruptedException {
        List<ReentrantLock> held = new ArrayList<>();
        try {
            for (Path p : new TreeSet<>(paths)) {
                ReentrantLock l = locks.computeIfAbsent(p, k -> new ReentrantLock());
                l.lockInterruptibly();
                held.add(l);
            }
        } catch (InterruptedException e) {
            unlock(held);
            throw e;
        }
        return () -> unlock(held);
    }

    private static void unlock(List<ReentrantLock> held) {
        for (int i = held.size() - 1; i >= 0; i--) {
            held.get(i).unlock();
        }
    }
}
