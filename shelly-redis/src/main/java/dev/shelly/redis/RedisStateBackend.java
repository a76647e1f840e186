package dev.shelly.redis;

import dev.shelly.chats.ShellyException;
import dev.shelly.state.StateBackend;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
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
 * <p>Layout, under {@code <prefix><name>:}: a hash {@code data} mapping each key to
 * {@code "<version> <json>"}, a counter {@code version} that every write increments (so versions
 * never repeat, even for a key deleted and written again), and the pub/sub channel
 * {@code changed}. Every write is one Lua script: compare-and-set reads the version and writes
 * in the same atomic step, and publishes on {@code changed} after the write, which wakes the
 * watchers of every process. {@link #entries()} is one {@code HGETALL}: a consistent snapshot.
 *
 * <p>Thread-safe. Errors: {@link RedisUnavailableException} after the timeout.
 */
public final class RedisStateBackend implements StateBackend, AutoCloseable {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static final LuaScript PUT = LuaScript.of("""
            local v = redis.call('INCR', KEYS[2])
            redis.call('HSET', KEYS[1], ARGV[1], v .. ' ' .. ARGV[2])
            redis.call('PUBLISH', ARGV[3], ARGV[4])
            return v
            """);
    private static final LuaScript COMPARE_AND_SET = LuaScript.of("""
            local cur = redis.call('HGET', KEYS[1], ARGV[1])
            local curv = 0
            if cur then curv = tonumber(string.sub(cur, 1, string.find(cur, ' ', 1, true) - 1)) end
            if curv ~= tonumber(ARGV[5]) then return 0 end
            local v = redis.call('INCR', KEYS[2])
            redis.call('HSET', KEYS[1], ARGV[1], v .. ' ' .. ARGV[2])
            redis.call('PUBLISH', ARGV[3], ARGV[4])
            return v
            """);
    private static final LuaScript REMOVE = LuaScript.of("""
            if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
            redis.call('INCR', KEYS[2])
            redis.call('PUBLISH', ARGV[2], ARGV[3])
            return 1
            """);

    private final RedisConnection redis;
    private final String base;
    private final String[] keys;
    private final Notifications notifications;

    RedisStateBackend(RedisConnection redis, String base) {
        this.redis = redis;
        this.base = base;
        this.keys = new String[] {base + "data", base + "version"};
        this.notifications = new Notifications(redis, base + "changed");
    }

    @Override
    public Optional<Entry> get(String key) {
        requireKey(key);
        String stored = redis.call("reading key '" + key + "' of " + base, c -> c.hget(keys[0], key));
        return Optional.ofNullable(stored).map(s -> decode(key, s));
    }

    @Override
    public List<String> keys() {
        return List.copyOf(redis.call("listing the keys of " + base, c -> c.hkeys(keys[0])));
    }

    @Override
    public List<Entry> entries() {
        Map<String, String> all = redis.call("reading the entries of " + base, c -> c.hgetall(keys[0]));
        List<Entry> entries = new ArrayList<>(all.size());
        all.forEach((k, v) -> entries.add(decode(k, v)));
        return List.copyOf(entries);
    }

    @Override
    public long put(String key, JsonNode value) {
        requireKey(key);
        Long version = redis.script(PUT, "writing key '" + key + "' of " + base, ScriptOutputType.INTEGER, keys, key,
                encode(key, value), notifications.channel(), notifications.origin());
        notifications.wrote();
        return version;
    }

    @Override
    public boolean compareAndSet(String key, long expectedVersion, JsonNode value) {
        requireKey(key);
        Long version = redis.script(COMPARE_AND_SET, "writing key '" + key + "' of " + base, ScriptOutputType.INTEGER,
                keys, key, encode(key, value), notifications.channel(), notifications.origin(),
                Long.toString(expectedVersion));
        if (version == 0) {
            return false;
        }
        notifications.wrote();
        return true;
    }

    @Override
    public boolean remove(String key) {
        requireKey(key);
        Long removed = redis.script(REMOVE, "removing key '" + key + "' of " + base, ScriptOutputType.INTEGER, keys,
                key, notifications.channel(), notifications.origin());
        if (removed == 0) {
            return false;
        }
        notifications.wrote();
        return true;
    }

    @Override
    public long revision() {
        return notifications.revision();
    }

    @Override
    public long awaitChange(long seen, Duration timeout) throws InterruptedException {
        return notifications.awaitChange(seen, timeout);
    }

    /** Stops listening for changes; reads and writes still work, watchers wake only by timeout. */
    @Override
    public void close() {
        notifications.close();
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
        int space = stored.indexOf(' ');
        if (space < 1) {
            throw new ShellyException("key '" + key + "' of " + base + "data holds no Shelly entry "
                    + "(expected '<version> <json>'); another program wrote it");
        }
        return new Entry(key, JSON.readTree(stored.substring(space + 1)), Long.parseLong(stored.substring(0, space)));
    }

    @Override
    public String toString() {
        return "RedisStateBackend[" + base + " at " + redis + "]";
    }
}
