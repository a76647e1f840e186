package dev.shelly.redis;

import dev.shelly.storage.spi.RedisConfig;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two Lettuce connections of one {@link RedisBackends}, and the one place that turns the
 * client's exceptions into {@link RedisUnavailableException}s naming the server (without its
 * password), the timeout and the operation. Thread-safe.
 *
 * <p>Pub/sub: each backend listens on its own channel. Lettuce subscribes again by itself after
 * a reconnect; messages published while the connection was down are lost, so on every
 * re-subscription each listener is told to assume a change ({@link Listener#resubscribed()}),
 * and its watchers look again.
 */
final class RedisConnection implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RedisConnection.class);

    /** Hears the messages of one channel. */
    interface Listener {
        /** A message arrived. */
        void message(String payload);

        /** The channel was subscribed again after a reconnect: messages may have been lost. */
        void resubscribed();
    }

    private final RedisClient client;
    private final ClientResources resources;
    private final RedisConfig config;
    private final StatefulRedisConnection<String, String> connection;
    private final StatefulRedisPubSubConnection<String, String> pubsub;
    private final Map<String, List<Listener>> listeners = new ConcurrentHashMap<>();
    private final Set<String> confirmed = ConcurrentHashMap.newKeySet();
    private final ReentrantLock subscriptions = new ReentrantLock();

    private RedisConnection(RedisClient client, ClientResources resources, RedisConfig config,
            StatefulRedisConnection<String, String> connection, StatefulRedisPubSubConnection<String, String> pubsub) {
        this.client = client;
        this.resources = resources;
        this.config = config;
        this.connection = connection;
        this.pubsub = pubsub;
        pubsub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                List<Listener> found = listeners.get(channel);
                if (found != null) {
                    found.forEach(l -> l.message(message));
                }
            }

            @Override
            public void subscribed(String channel, long count) {
                if (!confirmed.add(channel)) {
                    LOG.debug("re-subscribed to {} after a reconnect", channel);
                    List<Listener> found = listeners.get(channel);
                    if (found != null) {
                        found.forEach(Listener::resubscribed);
                    }
                }
            }
        });
    }

    /**
     * Connects a client made on its own resources (the connection shuts both down when it closes).
     *
     * @param client the client
     * @param resources the client's resources: its event loops, and how soon it reconnects
     * @param config the settings it was made from
     * @return the open connection
     * @throws RedisUnavailableException when the server cannot be reached within the timeout
     */
    static RedisConnection open(RedisClient client, ClientResources resources, RedisConfig config) {
        StatefulRedisConnection<String, String> connection = null;
        try {
            connection = client.connect();
            StatefulRedisPubSubConnection<String, String> pubsub = client.connectPubSub();
            return new RedisConnection(client, resources, config, connection, pubsub);
        } catch (RedisException e) {
            if (connection != null) {
                connection.close();
            }
            shutdown(client, resources);
            throw new RedisUnavailableException("cannot connect to Redis at " + config.safeUrl() + " within "
                    + seconds(config.timeout()) + ": " + rootMessage(e), e);
        }
    }

    String prefix() {
        return config.keyPrefix();
    }

    /**
     * Runs one command (or script) and waits for its answer, turning the client's failures into
     * clear ones. The wait ignores interrupts, which it carries over (the flag stays set): it is
     * bounded by the timeout anyway, and a caller that was interrupted must still be able to
     * read, e.g. a watcher whose value is already there. Blocking points that wait for a change
     * answer interrupts instead.
     */
    <T> T call(String what, Function<RedisAsyncCommands<String, String>, RedisFuture<T>> op) {
        RedisFuture<T> future;
        try {
            future = op.apply(connection.async());
        } catch (RedisException e) {
            throw failed(what, e);
        }
        long deadline = System.nanoTime() + config.timeout().toNanos() + TimeUnit.SECONDS.toNanos(1);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw failed(what, e.getCause());
                } catch (TimeoutException e) {
                    future.cancel(true);
                    throw new RedisUnavailableException("Redis at " + config.safeUrl() + " did not answer within "
                            + seconds(config.timeout()) + " while " + what, e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private RedisUnavailableException failed(String what, Throwable e) {
        if (e instanceof RedisCommandTimeoutException) {
            return new RedisUnavailableException("Redis at " + config.safeUrl() + " did not answer within "
                    + seconds(config.timeout()) + " while " + what, e);
        }
        return new RedisUnavailableException("Redis at " + config.safeUrl() + " failed while " + what + ": "
                + rootMessage(e), e);
    }

    /**
     * Runs a Lua script by its SHA1 digest, loading it with EVAL when the server does not know it
     * (after a restart, or on first use). Either way it runs atomically on the server.
     */
    <T> T script(LuaScript script, String what, ScriptOutputType type, String[] keys, String... args) {
        try {
            return call(what, c -> c.evalsha(script.sha1(), type, keys, args));
        } catch (RedisUnavailableException e) {
            if (!(e.getCause() instanceof RedisNoScriptException)) {
                throw e;
            }
            return call(what, c -> c.eval(script.source(), type, keys, args));
        }
    }

    /**
     * Listens on a channel; returns once the server confirmed the subscription. Listening and
     * stopping are serialised, so that a channel closed and opened again at the same moment is
     * never left unsubscribed.
     */
    void listen(String channel, Listener listener) {
        subscriptions.lock();
        try {
            listeners.computeIfAbsent(channel, k -> new CopyOnWriteArrayList<>()).add(listener);
            try {
                pubsub.sync().subscribe(channel);
            } catch (RedisCommandTimeoutException e) {
                remove(channel, listener);
                throw new RedisUnavailableException("Redis at " + config.safeUrl() + " did not answer within "
                        + seconds(config.timeout()) + " while subscribing to " + channel, e);
            } catch (RedisException e) {
                remove(channel, listener);
                throw new RedisUnavailableException("Redis at " + config.safeUrl() + " failed while subscribing to "
                        + channel + ": " + rootMessage(e), e);
            }
        } finally {
            subscriptions.unlock();
        }
    }

    /** Stops a listener; unsubscribes the channel when it was the last one. */
    void stopListening(String channel, Listener listener) {
        subscriptions.lock();
        try {
            if (remove(channel, listener) && pubsub.isOpen()) {
                confirmed.remove(channel);
                pubsub.async().unsubscribe(channel);
            }
        } finally {
            subscriptions.unlock();
        }
    }

    /** Removes a listener; true when the channel has none left. */
    private boolean remove(String channel, Listener listener) {
        List<Listener> list = listeners.get(channel);
        if (list == null) {
            return false;
        }
        list.remove(listener);
        if (list.isEmpty()) {
            listeners.remove(channel);
            return true;
        }
        return false;
    }

    @Override
    public void close() {
        try {
            pubsub.close();
            connection.close();
        } finally {
            shutdown(client, resources);
        }
    }

    private static void shutdown(RedisClient client, ClientResources resources) {
        try {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        } finally {
            // Resources given to a client are not the client's to shut down.
            resources.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    @Override
    public String toString() {
        return config.safeUrl() + ", prefix '" + config.keyPrefix() + "'";
    }

    static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return root == e ? message : message + " (" + root.getClass().getSimpleName() + ")";
    }
}
