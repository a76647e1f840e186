package dev.shelly.redis;

import dev.shelly.storage.spi.RedisConfig;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two Lettuce connections of one {@link RedisBackends} (to one server, or to a Redis Cluster,
 * whose client routes each command to the master of its keys' slot), and the one place that turns the
 * client's exceptions into {@link RedisUnavailableException}s naming the server (without its
 * password), the timeout and the operation. Thread-safe.
 *
 * <p>Pub/sub: each backend listens on its own channel. Lettuce subscribes again by itself after
 * a reconnect; messages published while the connection was down are lost, so on every
 * re-subscription each listener is told to assume a change ({@link Listener#resubscribed()}),
 * and its watchers look again.
 *
 * <p>Durability: a write counts as done when the server answered it and, with {@code replicas}
 * above 0, when that many replicas confirmed it ({@code WAIT} to the master that ran it, on a
 * connection of its own per master, so that other commands are not held up behind it): Redis
 * replicates asynchronously, and a master that dies before its replica has a write loses it in
 * the failover. A write not confirmed within half the timeout fails with a
 * {@link RedisUnavailableException} (it may still have landed, as after any timeout); so on a
 * master without a replica (after a failover, until one joins) every write fails after that
 * wait, while reads and the writes to other masters go on.
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

    private final AbstractRedisClient client;
    private final ClientResources resources;
    private final RedisConfig config;
    private final StatefulConnection<String, String> connection;
    private final RedisClusterAsyncCommands<String, String> commands;
    private final StatefulRedisPubSubConnection<String, String> pubsub;
    private final int replicas;
    private final Map<String, List<Listener>> listeners = new ConcurrentHashMap<>();
    private final Set<String> confirmed = ConcurrentHashMap.newKeySet();
    private final ReentrantLock subscriptions = new ReentrantLock();
    /** The confirming connection of each master (by node id; "" for one server). */
    private final Map<String, Confirmer> confirmers = new ConcurrentHashMap<>();
    private RedisClient confirming;

    private RedisConnection(AbstractRedisClient client, ClientResources resources, RedisConfig config,
            StatefulConnection<String, String> connection, StatefulRedisPubSubConnection<String, String> pubsub) {
        this.client = client;
        this.resources = resources;
        this.config = config;
        this.connection = connection;
        this.commands = connection instanceof StatefulRedisClusterConnection<String, String> cluster ? cluster.async()
                : ((StatefulRedisConnection<String, String>) connection).async();
        this.pubsub = pubsub;
        this.replicas = config.replicas();
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
    static RedisConnection open(AbstractRedisClient client, ClientResources resources, RedisConfig config) {
        StatefulConnection<String, String> connection = null;
        try {
            StatefulRedisPubSubConnection<String, String> pubsub;
            if (client instanceof io.lettuce.core.cluster.RedisClusterClient cluster) {
                connection = cluster.connect();
                pubsub = cluster.connectPubSub();
            } else {
                io.lettuce.core.RedisClient single = (io.lettuce.core.RedisClient) client;
                connection = single.connect();
                pubsub = single.connectPubSub();
            }
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
     * The start of every key of one backend: {@code <prefix><name>:} on one server (as before
     * clusters were supported, so that data written then is found), and
     * {@code <prefix>{<name>}:} on a cluster, whose hash tag puts all of a backend's keys in one
     * slot, so that each of its scripts runs on one node.
     */
    String base(String kind, String name) {
        String tagged = config.cluster() ? "{" + name + "}" : name;
        return config.keyPrefix() + kind + tagged + ":";
    }

    /**
     * Runs one command (or script) and waits for its answer, turning the client's failures into
     * clear ones. The wait ignores interrupts, which it carries over (the flag stays set): it is
     * bounded by the timeout anyway, and a caller that was interrupted must still be able to
     * read, e.g. a watcher whose value is already there. Blocking points that wait for a change
     * answer interrupts instead.
     */
    <T> T call(String what, Function<RedisClusterAsyncCommands<String, String>, RedisFuture<T>> op) {
        RedisFuture<T> future;
        try {
            future = op.apply(commands);
        } catch (RedisException e) {
            throw failed(what, e);
        }
        return await(what, future);
    }

    /** Waits for an answer like {@link #call}. */
    private <T> T await(String what, Future<T> future) {
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
     * Runs a script that writes, and returns once the write is as durable as configured: with
     * {@code replicas} above 0, once that many replicas of the master that ran it confirmed it.
     */
    <T> T writeScript(LuaScript script, String what, ScriptOutputType type, String[] keys, String... args) {
        if (replicas == 0) {
            return script(script, what, type, keys, args);
        }
        RedisClusterNode before = masterOf(keys[0]);
        T answer = script(script, what, type, keys, args);
        awaitReplicas(what, keys[0], before);
        return answer;
    }

    /** Runs a command that writes, then waits for the replicas like {@link #writeScript}. */
    <T> T write(String what, String key, Function<RedisClusterAsyncCommands<String, String>, RedisFuture<T>> op) {
        if (replicas == 0) {
            return call(what, op);
        }
        RedisClusterNode before = masterOf(key);
        T answer = call(what, op);
        awaitReplicas(what, key, before);
        return answer;
    }

    private RedisClusterNode masterOf(String key) {
        if (connection instanceof StatefulRedisClusterConnection<String, String> cluster) {
            return cluster.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
        }
        return null;
    }

    /**
     * Confirms a write with the master that ran it: on a cluster, the master of the key's slot.
     * When the slot moved to another master meanwhile (a failover), the write cannot be confirmed
     * and fails.
     */
    private void awaitReplicas(String what, String key, RedisClusterNode before) {
        Confirmer confirmer;
        if (connection instanceof StatefulRedisClusterConnection<String, String> cluster) {
            RedisClusterNode now = masterOf(key);
            if (before == null || now == null || !before.getNodeId().equals(now.getNodeId())) {
                throw new RedisUnavailableException("Redis at " + config.safeUrl() + " moved the slot of " + key
                        + " to another master while " + what + ": the write may be lost in the failover", null);
            }
            confirmer = confirmers.computeIfAbsent(now.getNodeId(), id -> new Confirmer(
                    now.getUri().getHost() + ":" + now.getUri().getPort(), config.clusterUserInfo()));
            // A node that is no longer a master (it failed over) confirms nothing any more.
            confirmers.keySet().removeIf(id -> {
                RedisClusterNode node = cluster.getPartitions().getPartitionByNodeId(id);
                boolean gone = node == null || !node.is(RedisClusterNode.NodeFlag.UPSTREAM);
                if (gone) {
                    confirmers.get(id).close();
                }
                return gone;
            });
        } else {
            confirmer = confirmers.computeIfAbsent("", id -> new Confirmer(null, null));
        }
        Long confirmed = await(what + " (waiting for " + replicas + " replica(s) to confirm it)", confirmer.confirm());
        if (confirmed == null || confirmed < replicas) {
            throw new RedisUnavailableException(unconfirmed(config, confirmed, what), null);
        }
    }

    /** Why a write counts as not done: fewer replicas than the configuration asks for confirmed it (null: none). */
    static String unconfirmed(RedisConfig config, Long confirmed, String what) {
        return "Redis at " + config.safeUrl() + ": only " + (confirmed == null ? 0 : confirmed) + " of "
                + config.replicas() + " replica(s) confirmed the write within " + seconds(confirmTimeout(config))
                + " while " + what + "; it may be lost if its master fails";
    }

    /** How long a WAIT waits: half the timeout, so that a write confirmed late still returns within it. */
    private static Duration confirmTimeout(RedisConfig config) {
        return Duration.ofMillis(Math.max(1, config.timeout().toMillis() / 2));
    }

    /**
     * Confirms the writes to one master with {@code WAIT}, on a connection of its own: WAIT blocks
     * the connection it runs on, so on the shared one it would hold up every other command to
     * that master (reads, renewals) until the replicas answered, for as long as half the timeout
     * on a master without a replica. WAIT counts the writes its connection saw, so each round is
     * {@code PING} then {@code WAIT}: the PING, sent after the writes it confirms returned, moves
     * the connection's offset past them. Writes that ask while a round runs share the next round.
     */
    private final class Confirmer {
        private final StatefulRedisConnection<String, String> link;
        private final ReentrantLock lock = new ReentrantLock();
        private CompletableFuture<Long> next;
        private boolean sending;

        /** A connection to the node at {@code hostPort} (with the cluster's user info), or for null to the server. */
        Confirmer(String hostPort, String userInfo) {
            RedisURI uri = RedisURI.create(hostPort == null ? config.url() : "redis://" + userInfo + hostPort);
            uri.setSsl(config.tls());
            uri.setTimeout(config.timeout());
            try {
                link = confirming().connect(uri);
            } catch (RedisException e) {
                throw failed("connecting to " + (hostPort == null ? "it" : hostPort) + " to confirm writes", e);
            }
        }

        CompletableFuture<Long> confirm() {
            lock.lock();
            try {
                if (next == null) {
                    next = new CompletableFuture<>();
                }
                CompletableFuture<Long> mine = next;
                if (!sending) {
                    send();
                }
                // A copy: a caller that gives up cancels its own wait, not the round's.
                return mine.copy();
            } finally {
                lock.unlock();
            }
        }

        /** Sends the waiting round; called under the lock. */
        private void send() {
            CompletableFuture<Long> round = next;
            next = null;
            sending = true;
            link.async().ping();
            link.async().waitForReplication(replicas, confirmTimeout(config).toMillis()).whenComplete((n, e) -> {
                if (e != null) {
                    round.completeExceptionally(e);
                } else {
                    round.complete(n);
                }
                lock.lock();
                try {
                    sending = false;
                    if (next != null) {
                        send();
                    }
                } finally {
                    lock.unlock();
                }
            });
        }

        void close() {
            link.closeAsync();
        }
    }

    /** The client of the confirming connections, on the same resources; made on first use. */
    private RedisClient confirming() {
        subscriptions.lock();
        try {
            if (confirming == null) {
                confirming = RedisClient.create(resources);
                confirming.setOptions(ClientOptions.builder().autoReconnect(true)
                        .socketOptions(SocketOptions.builder().connectTimeout(config.timeout()).build())
                        .timeoutOptions(TimeoutOptions.enabled(config.timeout())).build());
            }
            return confirming;
        } finally {
            subscriptions.unlock();
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
            subscriptions.lock();
            try {
                if (confirming != null) {
                    confirming.shutdown(Duration.ZERO, Duration.ofSeconds(2));
                }
            } finally {
                subscriptions.unlock();
            }
        } finally {
            shutdown(client, resources);
        }
    }

    private static void shutdown(AbstractRedisClient client, ClientResources resources) {
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
