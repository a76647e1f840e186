package dev.shelly.redis;

import dev.shelly.state.tasks.Task;
import dev.shelly.state.tasks.TaskBackend;
import dev.shelly.state.tasks.TaskStatus;
import io.lettuce.core.ScriptOutputType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A {@link TaskBackend} in Redis: the tasks of one named board, shared by every process that
 * opens the same name on the same server. Made by {@link RedisBackends#taskBackend(String)}.
 *
 * <p>Layout, under {@code <prefix><name>:}: {@link RedisCells} in the hash {@code tasks}, mapping
 * each id to {@code "<version> <json>"}, with the counter {@code version}; a sorted set
 * {@code order} of ids scored by their first version, for {@link #all()} in insertion order; one
 * sorted set per status, {@code status:<status>}, with the same scores, so that
 * {@link #withStatus} (what {@link dev.shelly.state.tasks.TaskBoard#claimNext} reads) does not
 * read the whole board; a sorted set {@code leases} of the claimed ids scored by their lease's
 * end (epoch milliseconds), for {@link #expiredClaims}; the counter {@code sequence} for {@link #nextSequence()}; and the
 * channel {@code changed}.
 *
 * <p>Atomic steps: {@code nextSequence} is one {@code INCR}; {@code insert} and {@code replace}
 * are the cells' one compare-and-set script. {@code replace} expects the stored JSON to be the
 * expected task's JSON and writes the new one in the same script, so of many processes claiming
 * one task exactly one wins; it then moves the id between the status sets and publishes on
 * {@code changed}. The JSON of a task is canonical (same task, same text), which makes the
 * comparison exact.
 *
 * <p>Thread-safe. Errors: {@link RedisUnavailableException} after the timeout. A write that
 * timed out may have run: the board then finds the task changed (claimed by this agent, say)
 * when it reads it again; a claim that nobody renews lapses (its lease) and goes back to pending.
 */
final class RedisTaskBackend extends CellsBackend implements TaskBackend {
    private static final int READ_CHUNK = 500;

    /** The tasks whose ids a sorted set holds, in its order: ZRANGE, then HMGET in chunks, atomically. */
    private static final LuaScript READ_ORDERED = LuaScript.of("""
            local ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]))
            local out = {}
            local chunk = tonumber(ARGV[2])
            for i = 1, #ids, chunk do
              local part = {}
              for j = i, math.min(i + chunk - 1, #ids) do part[#part + 1] = ids[j] end
              local values = redis.call('HMGET', KEYS[2], unpack(part))
              for j = 1, #values do out[#out + 1] = values[j] end
            end
            return out
            """);

    /** The tasks whose lease scores lie before a time: ZRANGEBYSCORE, then HMGET, atomically. */
    private static final LuaScript READ_EXPIRED = LuaScript.of("""
            local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
            if #ids == 0 then return {} end
            return redis.call('HMGET', KEYS[2], unpack(ids))
            """);

    private final RedisConnection redis;
    private final String base;
    private final String sequenceKey;
    private final String leasesKey;

    RedisTaskBackend(RedisConnection redis, String base) {
        super(new RedisCells(base + "tasks", base + "version", base + "order", new Notifications(redis, base + "changed")));
        this.redis = redis;
        this.base = base;
        this.sequenceKey = base + "sequence";
        this.leasesKey = base + "leases";
    }

    @Override
    public long nextSequence() {
        return redis.write("numbering a task of " + base, sequenceKey, c -> c.incr(sequenceKey));
    }

    @Override
    public boolean insert(Task task) {
        if (task == null) {
            throw new IllegalArgumentException("RedisTaskBackend.insert task must not be null");
        }
        String status = statusKey(task.status());
        return cells.writeIndexed("creating task " + task.id() + " of " + base, task.id(), TaskCodec.encode(task),
                RedisCells.Expect.ABSENT, null, status, status, leasesKey, leaseScore(task)) != 0;
    }

    @Override
    public Optional<Task> get(String id) {
        if (id == null) {
            throw new IllegalArgumentException("RedisTaskBackend.get id must not be null");
        }
        String stored = redis.call("reading task " + id + " of " + base, c -> c.hget(cells.hash(), id));
        return Optional.ofNullable(stored).map(t -> decode(cells.hash() + " field " + id, t));
    }

    @Override
    public List<Task> all() {
        return readOrdered(base + "order", -1, "reading the tasks of " + base);
    }

    @Override
    public List<Task> withStatus(TaskStatus status, int limit) {
        if (status == null || limit < 1) {
            throw new IllegalArgumentException("RedisTaskBackend.withStatus needs a status and a limit of at least 1, got "
                    + status + " and " + limit);
        }
        return readOrdered(statusKey(status), limit - 1, "reading the " + status.wireName() + " tasks of " + base);
    }

    private List<Task> readOrdered(String indexKey, long last, String what) {
        List<Object> texts = redis.script(READ_ORDERED, what, ScriptOutputType.MULTI,
                new String[] {indexKey, cells.hash()}, Long.toString(last), Integer.toString(READ_CHUNK));
        List<Task> tasks = new ArrayList<>(texts.size());
        for (Object text : texts) {
            if (text != null) {
                tasks.add(decode(cells.hash(), text.toString()));
            }
        }
        return List.copyOf(tasks);
    }

    private static Task decode(String where, String stored) {
        return TaskCodec.decode(where, RedisCells.parse(where, stored).text());
    }

    @Override
    public boolean replace(Task expected, Task next) {
        if (expected == null || next == null || !expected.id().equals(next.id())) {
            throw new IllegalArgumentException("RedisTaskBackend.replace needs two tasks with the same id, got "
                    + (expected == null ? null : expected.id()) + " and " + (next == null ? null : next.id()));
        }
        return cells.writeIndexed("updating task " + next.id() + " of " + base, next.id(), TaskCodec.encode(next),
                RedisCells.Expect.TEXT, TaskCodec.encode(expected), statusKey(expected.status()),
                statusKey(next.status()), leasesKey, leaseScore(next)) != 0;
    }

    @Override
    public List<Task> expiredClaims(Instant now, int limit) {
        // The index's scores are the leases in milliseconds; each task's own lease decides.
        return TaskBackend.lapsedClaims(now == null || limit < 1 ? List.of() : leasedBefore(now, limit), now, limit);
    }

    /** The tasks whose lease score lies before a time. */
    private List<Task> leasedBefore(Instant now, int limit) {
        List<Object> texts = redis.script(READ_EXPIRED, "reading the lapsed claims of " + base, ScriptOutputType.MULTI,
                new String[] {leasesKey, cells.hash()}, "(" + now.toEpochMilli(), Integer.toString(limit));
        List<Task> tasks = new ArrayList<>(texts.size());
        for (Object text : texts) {
            if (text != null) {
                tasks.add(decode(cells.hash(), text.toString()));
            }
        }
        return tasks;
    }

    private static long leaseScore(Task t) {
        return t.leaseUntil() == null ? -1 : t.leaseUntil().toEpochMilli();
    }

    private String statusKey(TaskStatus status) {
        return base + "status:" + status.wireName();
    }

    @Override
    public String toString() {
        return "RedisTaskBackend[" + base + " at " + redis + "]";
    }
}
