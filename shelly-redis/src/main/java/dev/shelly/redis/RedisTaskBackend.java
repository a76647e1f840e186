package dev.shelly.redis;

import dev.shelly.state.tasks.Task;
import dev.shelly.state.tasks.TaskBackend;
import dev.shelly.state.tasks.TaskStatus;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A {@link TaskBackend} in Redis: the tasks of one named board, shared by every process that
 * opens the same name on the same server. Made by {@link RedisBackends#taskBackend(String)}.
 *
 * <p>Layout, under {@code <prefix><name>:}: a hash {@code tasks} mapping each id to the task's
 * JSON; a sorted set {@code order} of ids scored by insertion number (from the counter
 * {@code inserted}), for {@link #all()} in insertion order; one sorted set per status,
 * {@code status:<status>}, with the same scores, so that {@link #withStatus} (what
 * {@link dev.shelly.state.tasks.TaskBoard#claimNext} reads) does not read the whole board; the
 * counter {@code sequence} for {@link #nextSequence()}; and the channel {@code changed}.
 *
 * <p>Atomic steps: {@code nextSequence} is one {@code INCR}; {@code insert} and {@code replace}
 * are Lua scripts. {@code replace} compares the stored JSON with the expected task's JSON and
 * writes the new one in the same script, so of many processes claiming one task exactly one
 * wins; it then moves the id between the status sets and publishes on {@code changed}. The JSON
 * of a task is canonical (same task, same text), which makes the comparison exact.
 *
 * <p>Thread-safe. Errors: {@link RedisUnavailableException} after the timeout. A write that
 * timed out may have run: the board then finds the task changed (claimed by this agent, say)
 * when it reads it again; {@link dev.shelly.state.tasks.TaskBoard#releaseClaimsOf} gives back
 * what a stopped agent held.
 */
public final class RedisTaskBackend implements TaskBackend, AutoCloseable {
    private static final int READ_CHUNK = 500;

    private static final LuaScript INSERT = LuaScript.of("""
            if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
            local n = redis.call('INCR', KEYS[3])
            redis.call('ZADD', KEYS[2], n, ARGV[1])
            redis.call('ZADD', KEYS[4], n, ARGV[1])
            redis.call('PUBLISH', ARGV[3], ARGV[4])
            return 1
            """);
    private static final LuaScript REPLACE = LuaScript.of("""
            if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
            redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
            if KEYS[3] ~= KEYS[4] then
              local n = redis.call('ZSCORE', KEYS[2], ARGV[1])
              redis.call('ZREM', KEYS[3], ARGV[1])
              redis.call('ZADD', KEYS[4], n, ARGV[1])
            end
            redis.call('PUBLISH', ARGV[4], ARGV[5])
            return 1
            """);
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

    private final RedisConnection redis;
    private final String base;
    private final String tasksKey;
    private final String orderKey;
    private final String insertedKey;
    private final String sequenceKey;
    private final Notifications notifications;

    RedisTaskBackend(RedisConnection redis, String base) {
        this.redis = redis;
        this.base = base;
        this.tasksKey = base + "tasks";
        this.orderKey = base + "order";
        this.insertedKey = base + "inserted";
        this.sequenceKey = base + "sequence";
        this.notifications = new Notifications(redis, base + "changed");
    }

    @Override
    public long nextSequence() {
        return redis.call("numbering a task of " + base, c -> c.incr(sequenceKey));
    }

    @Override
    public boolean insert(Task task) {
        if (task == null) {
            throw new IllegalArgumentException("RedisTaskBackend.insert task must not be null");
        }
        Long stored = redis.script(INSERT, "creating task " + task.id() + " of " + base, ScriptOutputType.INTEGER,
                new String[] {tasksKey, orderKey, insertedKey, statusKey(task.status())}, task.id(),
                TaskCodec.encode(task), notifications.channel(), notifications.origin());
        if (stored == 0) {
            return false;
        }
        notifications.wrote();
        return true;
    }

    @Override
    public Optional<Task> get(String id) {
        if (id == null) {
            throw new IllegalArgumentException("RedisTaskBackend.get id must not be null");
        }
        String text = redis.call("reading task " + id + " of " + base, c -> c.hget(tasksKey, id));
        return Optional.ofNullable(text).map(t -> TaskCodec.decode(tasksKey + " field " + id, t));
    }

    @Override
    public List<Task> all() {
        return readOrdered(orderKey, -1, "reading the tasks of " + base);
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
                new String[] {indexKey, tasksKey}, Long.toString(last), Integer.toString(READ_CHUNK));
        List<Task> tasks = new ArrayList<>(texts.size());
        for (Object text : texts) {
            if (text != null) {
                tasks.add(TaskCodec.decode(tasksKey, text.toString()));
            }
        }
        return List.copyOf(tasks);
    }

    @Override
    public boolean replace(Task expected, Task next) {
        if (expected == null || next == null || !expected.id().equals(next.id())) {
            throw new IllegalArgumentException("RedisTaskBackend.replace needs two tasks with the same id, got "
                    + (expected == null ? null : expected.id()) + " and " + (next == null ? null : next.id()));
        }
        Long stored = redis.script(REPLACE, "updating task " + next.id() + " of " + base, ScriptOutputType.INTEGER,
                new String[] {tasksKey, orderKey, statusKey(expected.status()), statusKey(next.status())}, next.id(),
                TaskCodec.encode(expected), TaskCodec.encode(next), notifications.channel(), notifications.origin());
        if (stored == 0) {
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

    private String statusKey(TaskStatus status) {
        return base + "status:" + status.wireName();
    }

    @Override
    public String toString() {
        return "RedisTaskBackend[" + base + " at " + redis + "]";
    }
}
