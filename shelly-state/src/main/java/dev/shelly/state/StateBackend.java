package dev.shelly.state;

import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * Where a {@link Store} keeps its entries: in memory by default ({@link InMemoryStateBackend}),
 * or in something several processes share, like Redis or a database.
 *
 * <p>The contract an implementation must meet:
 * <ul>
 *   <li>Every method is safe to call from many threads at once, and each is atomic: a reader
 *       sees a write entirely or not at all.</li>
 *   <li>Each write of a key stamps its entry with a version that no earlier write of any key in
 *       this backend had (a global counter works; a per-key counter does not, because a key
 *       deleted and written again would repeat a version). Version 0 means "absent".</li>
 *   <li>{@link #compareAndSet} writes only when the key's current version equals the expected
 *       one, decided atomically with the write: of many concurrent calls expecting the same
 *       version, at most one succeeds.</li>
 *   <li>{@link #entries()} is a consistent snapshot: the state after some sequence of whole
 *       writes.</li>
 *   <li>Every successful write ({@code put}, {@code compareAndSet} returning true, {@code remove}
 *       returning true) raises the {@link Watchable revision} after it is visible to readers,
 *       which wakes the store's watchers.</li>
 *   <li>Values: the store hands the backend a private copy of every value it writes and copies
 *       every value the backend returns before handing it out, so a backend may keep and return
 *       the nodes it is given. A backend that serialises stores the JSON text.</li>
 * </ul>
 */
public interface StateBackend extends Watchable {

    /**
     * One stored value and the version of the write that stored it.
     *
     * @param key the key
     * @param value the value: a JSON tree
     * @param version the write's version, above 0
     */
    record Entry(String key, JsonNode value, long version) {
        /** Validates the fields. */
        public Entry {
            if (key == null || value == null) {
                throw new IllegalArgumentException("StateBackend.Entry needs a key and a value");
            }
            if (version <= 0) {
                throw new IllegalArgumentException("StateBackend.Entry.version of '" + key + "' must be above 0, was " + version);
            }
        }
    }

    /**
     * The entry under a key.
     *
     * @param key the key
     * @return the entry, or empty when the key is absent
     */
    Optional<Entry> get(String key);

    /**
     * The keys present, in any order.
     *
     * @return the keys
     */
    List<String> keys();

    /**
     * Every entry, as one consistent snapshot, in any order.
     *
     * @return the entries
     */
    List<Entry> entries();

    /**
     * Stores a value, replacing any value under the key.
     *
     * @param key the key
     * @param value the value
     * @return the version of this write
     */
    long put(String key, JsonNode value);

    /**
     * Stores a value only when the key's current version is the expected one.
     *
     * @param key the key
     * @param expectedVersion the version the caller read, or 0 to require that the key is absent
     * @param value the value
     * @return true when the value was stored
     */
    boolean compareAndSet(String key, long expectedVersion, JsonNode value);

    /**
     * Removes a key.
     *
     * @param key the key
     * @return true when the key was present
     */
    boolean remove(String key);
}
