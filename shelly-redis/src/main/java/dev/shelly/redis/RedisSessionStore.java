package dev.shelly.redis;

import dev.shelly.chats.ShellyException;
import dev.shelly.state.ChangeSignal;
import dev.shelly.storage.SessionBusyException;
import dev.shelly.storage.SessionRecord;
import dev.shelly.storage.internal.ChatJson;
import dev.shelly.storage.internal.JournalLines;
import dev.shelly.storage.internal.LeaseState;
import dev.shelly.storage.internal.LeaseWait;
import dev.shelly.storage.internal.SessionIds;
import dev.shelly.storage.spi.SessionStore;
import io.lettuce.core.ScriptOutputType;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * A {@link SessionStore} in Redis: the sessions of every engine and process that opens the same
 * name on the same server, with the file store's guarantee that no acknowledged turn is lost.
 * Made by {@link RedisBackends#sessionStore(String)}; the engine's {@code redis:} section uses
 * {@link RedisBackends#sessions()}.
 *
 * <p>Layout, under {@code <prefix><name>:}: a hash {@code session:<id>} with the fields
 * {@code version} and {@code json} (the same JSON a {@link dev.shelly.storage.spi.FileSessionStore}
 * writes to {@code <id>.json}, through {@link ChatJson}), a string {@code lease:<id>} holding the
 * random token of the lease's holder, a list {@code journal:<id>} of the session's journal entries
 * (each {@code <version>\t<crc32>\t<entry>}, as the file store's lines), a set {@code ids} of the
 * saved sessions, and the pub/sub channel {@code released}.
 *
 * <ul>
 *   <li><b>Holding</b> is {@code SET lease:<id> <token> NX PX <ttl>}, with a token of 128 random
 *       bits per lease. While the lease is open, a watchdog thread renews it every third of its
 *       time to live (a compare-token script). A holder that dies stops renewing: its lease
 *       expires and the session comes free by itself. Closing deletes the key when it still holds
 *       this lease's token, and publishes the id on {@code released}.
 *   <li><b>Waiting</b> for another holder sleeps until a release is published, the other lease's
 *       time to live runs out, or a coarse fallback of {@value #FALLBACK_MILLIS} ms passes
 *       (a message lost to a reconnect), then tries again; after {@code wait} it fails with
 *       {@link SessionBusyException}. It is not fair: any waiter may win.
 *   <li><b>Load, save and delete</b> are one Lua script each that first checks that the lease key
 *       still holds this lease's token. A save writes only a higher version than the stored one,
 *       in the same atomic step, and renews the lease. When the lease lapsed (its holder was cut
 *       off from Redis longer than the time to live, and someone else may hold the session now),
 *       they fail with {@link SessionBusyException} and write nothing: a late holder never
 *       overwrites the next holder's turn.
 *   <li><b>The journal</b>: each {@link Lease#append} is one script that checks the lease, tags
 *       the entry with the version saved now and pushes it onto {@code journal:<id>}; a save that
 *       writes deletes the list in the same script, so the record and its journal never
 *       disagree. How durable an acknowledged entry is, is the server's persistence setting
 *       ({@code appendonly}, {@code appendfsync}), as for saves.
 * </ul>
 *
 * <p>Thread-safe. Every call fails with {@link RedisUnavailableException} after the timeout of its
 * {@link RedisBackends}; a failed save may still have landed (a reload shows it). Closing a lease
 * while Redis is away logs a warning; the lease then comes free when it expires.
 */
public final class RedisSessionStore implements SessionStore, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RedisSessionStore.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final ChatJson CODEC = new ChatJson(JSON);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** How long a waiter sleeps at most before it tries again without having heard of a release. */
    static final long FALLBACK_MILLIS = 1000;
    private static final long ACQUIRED = -10;

    private static final LuaScript ACQUIRE = LuaScript.of("""
            if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return -10 end
            return redis.call('PTTL', KEYS[1])
            """);
    private static final LuaScript RENEW = LuaScript.of("""
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
            redis.call('PEXPIRE', KEYS[1], ARGV[2])
            return 1
            """);
    private static final LuaScript RELEASE = LuaScript.of("""
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
            redis.call('DEL', KEYS[1])
            redis.call('PUBLISH', ARGV[2], ARGV[3])
            return 1
            """);
    private static final LuaScript LOAD = LuaScript.of("""
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {0} end
            local json = redis.call('HGET', KEYS[2], 'json')
            if not json then return {1} end
            return {1, json}
            """);
    private static final LuaScript SAVE = LuaScript.of("""
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
            local cur = redis.call('HGET', KEYS[2], 'version')
            if cur and tonumber(cur) >= tonumber(ARGV[2]) then return 0 end
            redis.call('HSET', KEYS[2], 'version', ARGV[2], 'json', ARGV[3])
            redis.call('SADD', KEYS[3], ARGV[4])
            redis.call('DEL', KEYS[4])
            redis.call('PEXPIRE', KEYS[1], ARGV[5])
            return 1
            """);
    private static final LuaScript DELETE = LuaScript.of("""
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
            redis.call('DEL', KEYS[2], KEYS[4])
            redis.call('SREM', KEYS[3], ARGV[2])
            return 1
            """);
    private static final LuaScript APPEND = LuaScript.of("""
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
            local cur = redis.call('HGET', KEYS[2], 'version') or '-1'
            return redis.call('RPUSH', KEYS[4], cur .. '\t' .. ARGV[2])
            """);
    private static final LuaScript JOURNAL = LuaScript.of("""
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {0} end
            local cur = redis.call('HGET', KEYS[2], 'version') or '-1'
            local lines = redis.call('LRANGE', KEYS[4], 0, -1)
            table.insert(lines, 1, cur)
            table.insert(lines, 1, 1)
            return lines
            """);

    private final RedisConnection redis;
    private final String base;
    private final Duration ttl;
    private final String ttlMillis;
    private final ChangeSignal released = new ChangeSignal();
    private final Set<RedisLease> held = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService watchdog;
    private volatile boolean closed;
    private final RedisConnection.Listener listener = new RedisConnection.Listener() {
        @Override
        public void message(String payload) {
            released.bump();
        }

        @Override
        public void resubscribed() {
            released.bump();
        }
    };

    RedisSessionStore(RedisConnection redis, String base, Duration ttl) {
        this.redis = redis;
        this.base = base;
        this.ttl = ttl;
        this.ttlMillis = Long.toString(ttl.toMillis());
        redis.listen(channel(), listener);
        this.watchdog = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("shelly-redis-session-leases").factory());
        long period = Math.max(1, ttl.toMillis() / 3);
        watchdog.scheduleWithFixedDelay(this::renewAll, period, period, TimeUnit.MILLISECONDS);
    }

    /**
     * How long a lease lives without being renewed: how soon a session comes free after its
     * holder died.
     *
     * @return the time to live
     */
    public Duration leaseTtl() {
        return ttl;
    }

    @Override
    public Lease open(String id, Duration wait) {
        LeaseWait waiting = LeaseWait.start("RedisSessionStore", id, wait);
        if (closed) {
            throw new IllegalStateException("RedisSessionStore " + base + " is closed: it renews no lease");
        }
        String token = newToken();
        String[] keys = {leaseKey(id)};
        while (true) {
            if (Thread.currentThread().isInterrupted()) {
                throw waiting.interrupted();
            }
            long seen = released.revision();
            Long answer = redis.writeScript(ACQUIRE, "taking the lease of session '" + id + "' of " + base,
                    ScriptOutputType.INTEGER, keys, token, ttlMillis);
            if (answer == ACQUIRED) {
                RedisLease lease = new RedisLease(id, token);
                held.add(lease);
                return lease;
            }
            long left = waiting.leftNanos();
            if (left <= 0) {
                throw waiting.busy();
            }
            // -2: the other lease ended between SET and PTTL; try again at once.
            long pause = answer == -2 ? 0
                    : Math.min(left, TimeUnit.MILLISECONDS.toNanos(answer > 0 ? Math.min(answer + 1, FALLBACK_MILLIS)
                            : FALLBACK_MILLIS));
            if (pause > 0) {
                try {
                    released.awaitChange(seen, Duration.ofNanos(pause));
                } catch (InterruptedException e) {
                    throw waiting.interrupted();
                }
            }
        }
    }

    @Override
    public List<String> ids() {
        Set<String> members = redis.call("listing the sessions of " + base, c -> c.smembers(base + "ids"));
        List<String> ids = new ArrayList<>(members.size());
        for (String id : members) {
            if (SessionIds.isValid(id)) {
                ids.add(id);
            }
        }
        ids.sort(null);
        return ids;
    }

    /** Reads the record without the lease: a save replaces it in one step, so a read sees one version. */
    @Override
    public Optional<SessionRecord> peek(String id) {
        SessionIds.check(id, "RedisSessionStore.peek id");
        String json = redis.call("reading session '" + id + "' of " + base, c -> c.hget(sessionKey(id), "json"));
        return json == null ? Optional.empty() : Optional.of(decode(id, json));
    }

    private SessionRecord decode(String id, String json) {
        String where = "session '" + id + "' in " + base;
        try {
            return CODEC.decodeRecord(id, JSON.readTree(json), where);
        } catch (JacksonException | IllegalArgumentException | java.time.format.DateTimeParseException e) {
            throw new ShellyException(where + " is not a valid session: " + e.getMessage(), e);
        }
    }

    /** Stops renewing leases and listening for releases. Leases still open expire by themselves. */
    @Override
    public void close() {
        closed = true;
        watchdog.shutdownNow();
        redis.stopListening(channel(), listener);
    }

    @Override
    public String toString() {
        return "RedisSessionStore[" + redis + ", " + base + "]";
    }

    /** Renews every open lease, all at once: one slow answer must not let the others lapse. */
    private void renewAll() {
        try (ExecutorService renewals = Executors.newVirtualThreadPerTaskExecutor()) {
            for (RedisLease lease : held) {
                renewals.execute(() -> renew(lease));
            }
        }
    }

    private void renew(RedisLease lease) {
        try {
            Long renewed = redis.writeScript(RENEW, "renewing the lease of session '" + lease.id + "' of " + base,
                    ScriptOutputType.INTEGER, new String[] {leaseKey(lease.id)}, lease.token, ttlMillis);
            if (renewed == 0 && held.remove(lease)) {
                LOG.warn("session {}: its lease of {} ms expired before it was renewed; its saves will be refused",
                        lease.id, ttl.toMillis());
            }
        } catch (RuntimeException e) {
            LOG.warn("session {}: cannot renew its lease: {}", lease.id, e.getMessage());
        }
    }

    private String channel() {
        return base + "released";
    }

    private String leaseKey(String id) {
        return base + "lease:" + id;
    }

    private String sessionKey(String id) {
        return base + "session:" + id;
    }

    private static String newToken() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /** A held session: its token in {@code lease:<id>}, renewed by the watchdog until closed. */
    private final class RedisLease implements Lease {
        private final LeaseState state;
        private final String id;
        private final String token;
        private final String[] keys;

        RedisLease(String id, String token) {
            this.state = new LeaseState("RedisSessionStore", id);
            this.id = id;
            this.token = token;
            this.keys = new String[] {leaseKey(id), sessionKey(id), base + "ids", base + "journal:" + id};
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public Optional<SessionRecord> load() {
            return state.whileOpen(() -> {
                List<Object> answer = redis.script(LOAD, "loading session '" + id + "' of " + base,
                        ScriptOutputType.MULTI, keys, token);
                if (((Long) answer.get(0)) == 0) {
                    throw lost("loaded");
                }
                return answer.size() < 2 ? Optional.empty() : Optional.of(decode(id, (String) answer.get(1)));
            });
        }

        @Override
        public boolean save(SessionRecord record) {
            String json = JSON.writeValueAsString(CODEC.encodeRecord(state.savable(record)));
            return state.whileOpen(() -> {
                Long answer = redis.writeScript(SAVE, "saving session '" + id + "' of " + base, ScriptOutputType.INTEGER,
                        keys, token, Long.toString(record.version()), json, id, ttlMillis);
                if (answer == -1) {
                    throw lost("saved");
                }
                return answer == 1;
            });
        }

        @Override
        public void delete() {
            state.whileOpen(() -> {
                Long answer = redis.writeScript(DELETE, "deleting session '" + id + "' of " + base, ScriptOutputType.INTEGER,
                        keys, token, id);
                if (answer == -1) {
                    throw lost("deleted");
                }
                return null;
            });
        }

        @Override
        public void append(String entry) {
            String sealed = JournalLines.sealed(JournalLines.check(id, entry));
            state.whileOpen(() -> {
                Long answer = redis.writeScript(APPEND, "appending to the journal of session '" + id + "' of " + base,
                        ScriptOutputType.INTEGER, keys, token, sealed);
                if (answer == -1) {
                    throw lost("appended to");
                }
                return null;
            });
        }

        @Override
        public List<String> journal() {
            return state.whileOpen(() -> {
                List<Object> answer = redis.script(JOURNAL, "reading the journal of session '" + id + "' of " + base,
                        ScriptOutputType.MULTI, keys, token);
                if (((Long) answer.get(0)) == 0) {
                    throw lost("read");
                }
                long version = Long.parseLong((String) answer.get(1));
                List<String> entries = new ArrayList<>(answer.size() - 2);
                for (int i = 2; i < answer.size(); i++) {
                    JournalLines.Line line = JournalLines.parse((String) answer.get(i));
                    if (line != null && line.version() == version) {
                        entries.add(line.entry());
                    }
                }
                return entries;
            });
        }

        private SessionBusyException lost(String what) {
            held.remove(this);
            return new SessionBusyException(id, "session '" + id + "' was not " + what + ": its lease expired (it was "
                    + "not renewed within " + ttl.toMillis() + " ms) and another engine or process may hold it now; "
                    + "nothing was written");
        }

        @Override
        public void close() {
            state.close(() -> {
                held.remove(this);
                try {
                    redis.writeScript(RELEASE, "releasing the lease of session '" + id + "' of " + base,
                            ScriptOutputType.INTEGER, new String[] {keys[0]}, token, channel(), id);
                } catch (RuntimeException e) {
                    LOG.warn("session {}: cannot release its lease, which comes free when it expires within {} ms: {}",
                            id, ttl.toMillis(), e.getMessage());
                }
                released.bump();
            });
        }

        @Override
        public String toString() {
            return state.toString();
        }
    }
}
