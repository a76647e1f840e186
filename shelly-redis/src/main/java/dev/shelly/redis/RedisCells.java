package dev.shelly.redis;

import dev.shelly.chats.ShellyException;
import dev.shelly.state.Watchable;

/**
 * Versioned cells in Redis: the one compare-and-set of the Redis blackboard and task board,
 * {@link dev.shelly.state.spi.VersionedCells}' rule run inside Redis, where a test and a write
 * are atomic only as one script.
 *
 * <p>Layout, under the backend's base: a hash ({@code data} or {@code tasks}) mapping each key to
 * {@code "<version> <text>"}, and a counter {@code version} that every write increments, so a
 * version never repeats, even for a key removed and written again. A write expects what is stored
 * now to be anything, nothing, a version, or a text (as {@code VersionedCells} tests with a
 * predicate), and the test and the write are one Lua script, which publishes on the backend's
 * channel after the write. A cells of an indexed backend (the task board) also keeps a sorted set
 * of keys by their first version ({@code order}) and moves each key between index sets (one per
 * status) in the same script, and a sorted set of keys by lease expiry, so a reader of an index
 * never reads the whole hash.
 *
 * <p>Thread-safe. Errors: {@link RedisUnavailableException} after the timeout.
 */
final class RedisCells implements AutoCloseable {
    /** What a write expects to find. */
    enum Expect {
        /** Any cell, or none: an unconditional write. */
        ANY,
        /** No cell: an insert. */
        ABSENT,
        /** A cell at a version (0 for none). */
        VERSION,
        /** A cell holding a text. */
        TEXT
    }

    // KEYS: the hash, the version counter; for an indexed write also the order set, the index the
    // key leaves (or joins first), the index it joins, and the lease set. ARGV: channel, writer id
    // (see Notifications.write), key, text, what is expected, the expected version or text; for an
    // indexed write also the key's score in the lease set ('' to leave it).
    private static final LuaScript WRITE = LuaScript.of("""
            local cur = redis.call('HGET', KEYS[1], ARGV[3])
            local curv, curtext = 0, false
            if cur then
              local v, t = string.match(cur, '^(%d+) (.*)$')
              curv, curtext = tonumber(v), t
            end
            local e = ARGV[5]
            if (e == 'ABSENT' and cur) or (e == 'VERSION' and curv ~= tonumber(ARGV[6]))
                or (e == 'TEXT' and curtext ~= ARGV[6]) then return 0 end
            local v = redis.call('INCR', KEYS[2])
            redis.call('HSET', KEYS[1], ARGV[3], v .. ' ' .. ARGV[4])
            if #KEYS > 2 then
              if not cur then
                redis.call('ZADD', KEYS[3], v, ARGV[3])
                redis.call('ZADD', KEYS[5], v, ARGV[3])
              elseif KEYS[4] ~= KEYS[5] then
                local n = redis.call('ZSCORE', KEYS[3], ARGV[3])
                redis.call('ZREM', KEYS[4], ARGV[3])
                redis.call('ZADD', KEYS[5], n, ARGV[3])
              end
              if ARGV[7] ~= '' then
                redis.call('ZADD', KEYS[6], ARGV[7], ARGV[3])
              else
                redis.call('ZREM', KEYS[6], ARGV[3])
              end
            end
            redis.call('PUBLISH', ARGV[1], ARGV[2])
            return v
            """);
    private static final LuaScript REMOVE = LuaScript.of("""
            if redis.call('HDEL', KEYS[1], ARGV[3]) == 0 then return 0 end
            redis.call('INCR', KEYS[2])
            redis.call('PUBLISH', ARGV[1], ARGV[2])
            return 1
            """);

    /**
     * One stored value as text.
     *
     * @param text the text
     * @param version the version of the write that stored it
     */
    record Stored(String text, long version) {}

    private final String hash;
    private final String[] keys;
    private final String order;
    private final Notifications notifications;

    /**
     * Cells in one hash.
     *
     * @param hash the hash
     * @param counter the version counter
     * @param order the order set of an indexed backend, or null
     * @param notifications the backend's channel
     */
    RedisCells(String hash, String counter, String order, Notifications notifications) {
        this.hash = hash;
        this.keys = new String[] {hash, counter};
        this.order = order;
        this.notifications = notifications;
    }

    /**
     * Writes a text when what is stored under its key is what the caller expects.
     *
     * @param what the write, for errors
     * @param key the key
     * @param text the text to store
     * @param expect what is expected
     * @param expected the expected version or text, or null
     * @return the version of this write, or 0 when the test refused it
     */
    long write(String what, String key, String text, Expect expect, String expected) {
        return notifications.write(WRITE, what, keys, key, text, expect.name(), expected == null ? "" : expected);
    }

    /**
     * Writes like {@link #write}, and moves the key from one index set to another (on its first
     * write: adds it to the order set and to {@code to}); puts it into the lease set with a score,
     * or takes it out for a negative score.
     *
     * @return the version of this write, or 0 when the test refused it
     */
    long writeIndexed(String what, String key, String text, Expect expect, String expected, String from, String to,
            String leases, long leaseScore) {
        return notifications.write(WRITE, what, new String[] {keys[0], keys[1], order, from, to, leases}, key, text,
                expect.name(), expected == null ? "" : expected, leaseScore < 0 ? "" : Long.toString(leaseScore));
    }

    /**
     * Removes a key (of cells with no index).
     *
     * @return true when it was there
     */
    boolean remove(String what, String key) {
        return notifications.write(REMOVE, what, keys, key) != 0;
    }

    /**
     * Reads what a hash field holds.
     *
     * @param where the field, for errors
     * @param stored its value, {@code "<version> <text>"}
     * @return the text and its version
     * @throws ShellyException when the value is not of that form (another program wrote it)
     */
    static Stored parse(String where, String stored) {
        int space = stored.indexOf(' ');
        long version = -1;
        if (space > 0) {
            try {
                version = Long.parseLong(stored.substring(0, space));
            } catch (NumberFormatException e) {
                version = -1;
            }
        }
        if (version <= 0) {
            throw new ShellyException(where + " holds no Shelly value (expected '<version> <json>'); another program "
                    + "wrote it");
        }
        return new Stored(stored.substring(space + 1), version);
    }

    /**
     * The hash the cells live in.
     *
     * @return its key
     */
    String hash() {
        return hash;
    }

    /**
     * What watchers wait on: raised by this process's writes as they return and by the other
     * writers' messages on the channel.
     *
     * @return the changes of these cells
     */
    Watchable changes() {
        return notifications;
    }

    /** Stops listening for changes; reads and writes still work, watchers wake only by timeout. */
    @Override
    public void close() {
        notifications.close();
    }
}
