package dev.shelly.benchmarks.durable;

import dev.shelly.storage.SessionRecord;
import dev.shelly.storage.spi.SessionStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A store with its journal hidden (a store written before journals: {@code append} and
 * {@code journal} unsupported), so that the engine keeps its sessions there without one: the
 * other half of a pair that measures what the journal costs on that store.
 */
record WithoutJournal(SessionStore store) implements SessionStore {
    @Override
    public Lease open(String id, Duration wait) {
        Lease lease = store.open(id, wait);
        return new Lease() {
            @Override
            public String id() {
                return lease.id();
            }

            @Override
            public Optional<SessionRecord> load() {
                return lease.load();
            }

            @Override
            public boolean save(SessionRecord record) {
                return lease.save(record);
            }

            @Override
            public void delete() {
                lease.delete();
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
}
