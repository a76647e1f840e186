package dev.shelly.redis;

import dev.shelly.state.ChangeSignal;
import dev.shelly.state.Watchable;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.UUID;

/**
 * The watch side of one Redis backend: a local {@link ChangeSignal} that is raised by this
 * backend's own writes (as soon as they return) and by the pub/sub messages that other backends'
 * writes publish (their scripts publish after the write, inside the same atomic script).
 *
 * <p>Each message carries the writer's id, so a backend skips its own messages, which it has
 * counted already. The local revision therefore grows once per write this process learns of; it
 * is not the same number in every process, and need not be: a watcher only compares it with
 * what it read before. After a reconnect, when messages may have been lost, the revision is
 * raised once so that every watcher looks again. No polling: a watcher sleeps on a condition
 * until one of these happens or its timeout passes.
 *
 * <p>Writes go through {@link #write}, which runs the script that publishes and counts the write
 * here when it landed: {@link RedisCells} writes so.
 */
final class Notifications implements RedisConnection.Listener, Watchable, AutoCloseable {
    private final RedisConnection redis;
    private final String channel;
    private final String origin = UUID.randomUUID().toString();
    private final ChangeSignal signal = new ChangeSignal();

    Notifications(RedisConnection redis, String channel) {
        this.redis = redis;
        this.channel = channel;
        redis.listen(channel, this);
    }

    /**
     * Runs a write script and counts the write when it landed. The script gets the channel and
     * this backend's id as {@code ARGV[1]} and {@code ARGV[2]}, then {@code args}; it answers 0
     * when its comparison refused the write, and otherwise publishes the id on the channel.
     *
     * @return the script's answer: 0 when nothing was written
     */
    long write(LuaScript script, String what, String[] keys, String... args) {
        String[] all = new String[args.length + 2];
        all[0] = channel;
        all[1] = origin;
        System.arraycopy(args, 0, all, 2, args.length);
        Long answer = redis.writeScript(script, what, ScriptOutputType.INTEGER, keys, all);
        if (answer != 0) {
            signal.bump();
        }
        return answer;
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
    public void message(String payload) {
        if (!origin.equals(payload)) {
            signal.bump();
        }
    }

    @Override
    public void resubscribed() {
        signal.bump();
    }

    @Override
    public void close() {
        redis.stopListening(channel, this);
    }
}
