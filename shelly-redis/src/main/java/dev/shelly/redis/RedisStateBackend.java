package dev.shelly.redis;

import dev.shelly.state.StateBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A {@link StateBackend} in Redis: the entries of one named store, shared by every process that
 * opens the same name on the same server. Made by {@link RedisBackends#stateBackend(String)}.
 *
 * <p>Layout, under {@code <prefix><name>:}: {@link RedisCells} in the hash {@code data} (each key
 * mapped to {@code "<version> <json>"}) with the counter {@code version} that every write
 * increments (so versions never repeat, even for a key deleted and written again), and the
 * pub/sub channel {@code changed}. Every write is one Lua script: compare-and-set reads the
 * version and writes in the same atomic step, and publishes on {@code changed} after the write,
 * which wakes the watchers of every process. {@link #entries()} is one {@code HGETALL}: a
 * consistent snapshot.
 *
 * <p>Thread-safe. Errors: {@link RedisUnavailableException} after the timeout.
 */
final class RedisStateBackend extends CellsBackend implements StateBackend {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final RedisConnection redis;
    private final String base;

    RedisStateBackend(RedisConnection redis, String base) {
        super(new RedisCells(base + "data", base + "version", null, new Notifications(redis, base + "changed")));
        this.redis = redis;
        this.base = base;
    }

    @Override
    public Optional<Entry> get(String key) {
        requireKey(key);
        String stored = redis.call("reading key '" + key + "' of " + base, c -> c.hget(cells.hash(), key));
        return Optional.ofNullable(stored).map(s -> decode(key, s));
    }

    @Override
    public List<String> keys() {
        return List.copyOf(redis.call("listing the keys of " + base, c -> c.hkeys(cells.hash())));
    }

    @Override
    public List<Entry> entries() {
        Map<String, String> all = redis.call("reading the entries of " + base, c -> c.hgetall(cells.hash()));
        List<Entry> entries = new ArrayList<>(all.size());
        all.forEach((k, v) -> entries.add(decode(k, v)));
        return List.copyOf(entries);
    }

    @Override
    public long put(String key, JsonNode value) {
        requireKey(key);
        return cells.write("writing key '" + key + "' of " + base, key, encode(key, value), RedisCells.Expect.ANY, null);
    }

    @Override
    public boolean compareAndSet(String key, long expectedVersion, JsonNode value) {
        requireKey(key);
        return cells.write("writing key '" + key + "' of " + base, key, encode(key, value), RedisCells.Expect.VERSION,
                Long.toString(expectedVersion)) != 0;
    }

    @Override
    public boolean remove(String key) {
        requireKey(key);
        return cells.remove("removing key '" + key + "' of " + base, key);
    }

    private static void requireKey(String key) {
        if (key == null) {
            throw new IllegalArgumentException("RedisStateBackend key must not be null");
        }
    }

    private static String encode(String key, JsonNode value) {
        if (value == null) {
            throw new IllegalArgumentException("RedisStateBackend value of key '" + key + "' must not be null");
        }
        return JSON.writeValueAsString(value);
    }

    private Entry decode(String key, String stored) {
        RedisCells.Stored s = RedisCells.parse("key '" + key + "' of " + cells.hash(), stored);
        return new Entry(key, JSON.readTree(s.text()), s.version());
    }

    @Override
    public String toString() {
        return "RedisStateBackend[" + base + " at " + redis + "]";
    }
}
