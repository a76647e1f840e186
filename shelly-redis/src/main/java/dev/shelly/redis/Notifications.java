package dev.shelly.redis;

import dev.shelly.state.ChangeSignal;
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
 */
final class Notifications implements RedisConnection.Listener, AutoCloseable {
    private final RedisConnection redis;
    private final String channel;
    private final String origin = UUID.randomUUID().toString();
    private final ChangeSignal signal = new ChangeSignal();

    Notifications(RedisConnection redis, String channel) {
        this.redis = redis;
        this.channel = channel;
        redis.listen(channel, this);
    }

    /** The channel writes publish on. */
    String channel() {
        return channel;
    }

    /** What this backend's writes publish: its id. */
    String origin() {
        return origin;
    }

    /** Counts one of this backend's own writes, once it returned. */
    void wrote() {
        signal.bump();
    }

    long revision() {
        return signal.revision();
    }

    long awaitChange(long seen, Duration timeout) throws InterruptedException {
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
