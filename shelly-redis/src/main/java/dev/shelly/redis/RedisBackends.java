package dev.shelly.redis;

import dev.shelly.storage.spi.RedisConfig;
import dev.shelly.storage.spi.SessionStore;
import dev.shelly.storage.spi.SharedBackends;
import dev.shelly.modeladapter.RateLimit;
import dev.shelly.modeladapter.RateLimitedCompleter.RateLimiter;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import dev.shelly.state.StateBackend;
import dev.shelly.state.tasks.TaskBackend;
import dev.shelly.state.tasks.TaskBoard;
import java.time.Clock;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One Redis server (or one Redis Cluster) and the Shelly backends that live in it: {@link RedisStateBackend} for a
 * {@link dev.shelly.state.Store}, {@link RedisTaskBackend} for a {@link dev.shelly.state.tasks.TaskBoard},
 * {@link RedisSessionStore} for an engine's sessions, and {@link RedisRateLimiter} for a
 * {@link dev.shelly.modeladapter.RateLimitedCompleter}. Every process that opens the same server
 * with the same key prefix shares them.
 *
 * <pre>{@code
 * try (RedisBackends redis = RedisBackends.builder("redis://localhost:6379").keyPrefix("orders:").build()) {
 *     Store store = new Store(redis.stateBackend("blackboard"));
 *     TaskBoard board = new TaskBoard(redis.taskBackend("board"), Clock.systemUTC());
 *     Completer limited = RateLimitedCompleter.of(claude, redis.rateLimiter("claude", new RateLimit(50, 40_000)));
 *     Engine engine = Engine.builder().dir(ShellyDir.require(Path.of("."))).sessionStore(redis.sessionStore("sessions")).build();
 * }
 * }</pre>
 *
 * <p>It holds two connections (Lettuce's: thread-safe, pipelined, reconnecting on their own): one
 * for commands and scripts, one for the pub/sub messages that wake watchers. Every command fails
 * with a {@link RedisUnavailableException} after the timeout, never later; while the server is
 * away, commands wait for the reconnect up to that timeout. Thread-safe. It is also the engine's
 * {@link SharedBackends} for a {@code redis:} section ({@link #state()}, {@link #tasks()},
 * {@link #sessions()}).
 *
 * <p>A Redis Cluster is opened the same way, by a {@code redis-cluster://host:port,host:port}
 * URL or {@link #builder(List)} with its nodes: every backend keeps its keys under one hash tag,
 * so each of its scripts runs on one slot, and each write returns once a replica confirmed it
 * ({@link Builder#replicas}).
 */
public final class RedisBackends implements SharedBackends {
    /** How long a session's lease lives without renewal unless {@link Builder#sessionLease} says otherwise. */
    public static final Duration DEFAULT_SESSION_LEASE = Duration.ofSeconds(15);
    /** The longest wait between two attempts to reconnect after the server went away. */
    static final Duration RECONNECT_AT_MOST = Duration.ofMillis(250);

    private final RedisConnection redis;
    private final ReentrantLock lock = new ReentrantLock();
    private StateBackend engineState;
    private TaskBackend engineTasks;
    private RedisSessionStore engineSessions;
    private final List<RedisSessionStore> sessionStores = new ArrayList<>();
    private final Duration sessionLease;
    private final Duration taskLease;

    private RedisBackends(RedisConnection redis, Duration sessionLease, Duration taskLease) {
        this.redis = redis;
        this.sessionLease = sessionLease;
        this.taskLease = taskLease;
    }

    /**
     * Starts the settings for a server, or for a cluster.
     *
     * @param url {@code redis://[[user]:password@]host[:port][/database]}, {@code rediss://} for
     *     TLS, or {@code redis-cluster://[[user]:password@]host:port,host:port,...} for a cluster
     * @return a builder
     */
    public static Builder builder(String url) {
        return new Builder(url, null);
    }

    /**
     * Starts the settings for a Redis Cluster: any of its nodes; the client finds the rest.
     *
     * @param nodes each {@code host:port} or {@code redis://[[user]:password@]host:port}
     *     ({@code rediss://} for TLS: all nodes or none); credentials on any one node hold for all
     * @return a builder
     */
    public static Builder builder(List<String> nodes) {
        if (nodes == null || nodes.isEmpty()) {
            throw new IllegalArgumentException("RedisBackends nodes must name at least one node of the cluster");
        }
        return new Builder(null, List.copyOf(nodes));
    }

    /**
     * Opens the server a {@code redis:} configuration section names.
     *
     * @param config the section
     * @return the open backends
     * @throws RedisUnavailableException when the server cannot be reached within the timeout
     */
    public static RedisBackends open(RedisConfig config) {
        return builder(config.url()).keyPrefix(config.keyPrefix()).tls(config.tls()).timeout(config.timeout())
                .taskLease(config.taskLease()).replicas(config.replicas()).build();
    }

    /**
     * A blackboard backend: the entries of one named store. Backends of the same name share entries.
     *
     * @param name the store's name: letters, digits, '_', '-', '.' or ':'
     * @return the backend; close it to stop listening for its changes
     */
    public StateBackend stateBackend(String name) {
        return new RedisStateBackend(redis, redis.base("", checkName(name, "stateBackend")));
    }

    /**
     * A task backend: the tasks of one named board. Backends of the same name share tasks.
     *
     * @param name the board's name: letters, digits, '_', '-', '.' or ':'
     * @return the backend; close it to stop listening for its changes
     */
    public TaskBackend taskBackend(String name) {
        return new RedisTaskBackend(redis, redis.base("", checkName(name, "taskBackend")));
    }

    /**
     * A task board over {@link #taskBackend(String)}, on the system clock, whose claims are
     * leases of {@link Builder#taskLease} (default 30 s).
     *
     * @param name the board's name: letters, digits, '_', '-', '.' or ':'
     * @return the board
     */
    public TaskBoard taskBoard(String name) {
        return new TaskBoard(taskBackend(name), Clock.systemUTC(), taskLease);
    }

    /**
     * How long a task board's claim lives without renewal on boards made here, and on the
     * engine's board of a {@code redis:} section.
     *
     * @return the lease
     */
    public Duration taskLease() {
        return taskLease;
    }

    /**
     * A session store: the sessions of one name. Stores of the same name share sessions, and
     * hold them one holder at a time across every process.
     *
     * @param name the store's name: letters, digits, '_', '-', '.' or ':'
     * @return the store; it is closed with these backends (or close it earlier to stop its
     *     lease watchdog)
     */
    public RedisSessionStore sessionStore(String name) {
        RedisSessionStore store = new RedisSessionStore(redis, redis.base("", checkName(name, "sessionStore")),
                sessionLease);
        lock.lock();
        try {
            sessionStores.add(store);
        } finally {
            lock.unlock();
        }
        return store;
    }

    /**
     * A rate limiter that every limiter of the same name on this server shares. All of them
     * must be given the same limit.
     *
     * @param name usually the provider's name: letters, digits, '_', '-', '.' or ':'
     * @param limit the limit
     * @return the limiter
     */
    @Override
    public RateLimiter rateLimiter(String name, RateLimit limit) {
        if (limit == null) {
            throw new IllegalArgumentException("RedisBackends.rateLimiter limit must not be null");
        }
        return rateLimiter(name, limit, 60_000_000L);
    }

    /** A rate limiter whose window is {@code windowMicros} instead of a minute, for tests. */
    RedisRateLimiter rateLimiter(String name, RateLimit limit, long windowMicros) {
        if (limit == null) {
            throw new IllegalArgumentException("RedisBackends.rateLimiter limit must not be null");
        }
        return new RedisRateLimiter(redis, redis.base("ratelimit:", checkName(name, "rateLimiter")), limit,
                windowMicros);
    }

    /**
     * The engine's blackboard backend: {@code stateBackend("state")}, made once.
     *
     * @return the backend
     */
    @Override
    public StateBackend state() {
        lock.lock();
        try {
            if (engineState == null) {
                engineState = stateBackend("state");
            }
            return engineState;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The engine's task backend: {@code taskBackend("tasks")}, made once.
     *
     * @return the backend
     */
    @Override
    public TaskBackend tasks() {
        lock.lock();
        try {
            if (engineTasks == null) {
                engineTasks = taskBackend("tasks");
            }
            return engineTasks;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The engine's session store: {@code sessionStore("sessions")}, made once.
     *
     * @return the store
     */
    @Override
    public SessionStore sessions() {
        lock.lock();
        try {
            if (engineSessions == null) {
                engineSessions = sessionStore("sessions");
            }
            return engineSessions;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether the server answers a PING within the timeout.
     *
     * @return true when it does
     */
    public boolean ping() {
        try {
            return "PONG".equals(redis.call("PING", c -> c.ping()));
        } catch (RedisUnavailableException e) {
            return false;
        }
    }

    /**
     * Deletes every key under the key prefix: all that the backends made here hold, and whatever
     * else was stored with the same prefix. For a program that gave one run a prefix of its own
     * and leaves nothing behind; backends still in use find their data gone.
     *
     * @return how many keys were deleted
     * @throws IllegalStateException when the prefix is empty, since every key of the database
     *     would go
     * @throws RedisUnavailableException when the server does not answer
     */
    public long deleteKeys() {
        String prefix = redis.prefix();
        if (prefix.isEmpty()) {
            throw new IllegalStateException("RedisBackends.deleteKeys needs a key prefix: without one it would delete "
                    + "every key of the database");
        }
        ScanArgs match = ScanArgs.Builder.matches(glob(prefix) + "*").limit(500);
        long deleted = 0;
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            ScanCursor from = cursor;
            KeyScanCursor<String> page = redis.call("listing the keys under '" + prefix + "'", c -> c.scan(from, match));
            if (!page.getKeys().isEmpty()) {
                String[] keys = page.getKeys().toArray(String[]::new);
                deleted += redis.call("deleting the keys under '" + prefix + "'", c -> c.unlink(keys));
            }
            cursor = page;
        } while (!cursor.isFinished());
        return deleted;
    }

    /** A text matched literally by a Redis glob pattern. */
    private static String glob(String text) {
        StringBuilder sb = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if ("*?[]\\^".indexOf(c) >= 0) {
                sb.append('\\');
            }
            sb.append(c);
        }
        return sb.toString();
    }

    /**
     * Stops the session stores' lease watchdogs and closes both connections; every backend made
     * here stops working. Leases still open expire by themselves.
     */
    @Override
    public void close() {
        List<RedisSessionStore> stores;
        lock.lock();
        try {
            stores = List.copyOf(sessionStores);
            sessionStores.clear();
        } finally {
            lock.unlock();
        }
        try {
            for (RedisSessionStore store : stores) {
                try {
                    store.close();
                } catch (RuntimeException e) {
                    // the connection is closed next anyway
                }
            }
        } finally {
            redis.close();
        }
    }

    @Override
    public String toString() {
        return "RedisBackends[" + redis + "]";
    }

    private static String checkName(String name, String method) {
        if (name == null || !name.matches("[A-Za-z0-9_.:-]{1,100}")) {
            throw new IllegalArgumentException("RedisBackends." + method + " name must be 1 to 100 letters, digits, "
                    + "'_', '-', '.' or ':', was " + (name == null ? "null" : "'" + name + "'"));
        }
        return name;
    }

    /** The connection settings; {@link #build()} connects. */
    public static final class Builder {
        private final String url;
        private final List<String> nodes;
        private String keyPrefix = RedisConfig.DEFAULT_KEY_PREFIX;
        private Boolean tls;
        private Duration timeout = RedisConfig.DEFAULT_TIMEOUT;
        private Duration sessionLease = DEFAULT_SESSION_LEASE;
        private Duration taskLease = RedisConfig.DEFAULT_TASK_LEASE;
        private Integer replicas;

        private Builder(String url, List<String> nodes) {
            if (nodes == null && (url == null || url.isBlank())) {
                throw new IllegalArgumentException("RedisBackends url must not be null or blank");
            }
            this.url = url == null ? null : url.strip();
            this.nodes = nodes;
        }

        /**
         * Sets how long a task board's claim lives without renewal (default 30 s), for
         * {@link #taskBoard(String)} and the engine's board: how soon the task of a worker that
         * died comes back. A live board renews every third of it.
         *
         * @param value at least 100 ms
         * @return this builder
         */
        public Builder taskLease(Duration value) {
            if (value == null || value.compareTo(Duration.ofMillis(100)) < 0) {
                throw new IllegalArgumentException("RedisBackends taskLease must be at least 100 ms, was " + value);
            }
            this.taskLease = value;
            return this;
        }

        /**
         * Sets how many replicas must confirm each write before it returns ({@code WAIT}); default
         * 1 on a cluster, 0 on one server. With 0, a write acknowledged by a master that dies
         * before replicating it is lost in the failover.
         *
         * @param value 0 or more
         * @return this builder
         */
        public Builder replicas(int value) {
            if (value < 0) {
                throw new IllegalArgumentException("RedisBackends replicas must not be negative, was " + value);
            }
            this.replicas = value;
            return this;
        }

        /**
         * Sets the text every key and channel starts with (default {@code shelly:}), so that
         * several applications can share one server.
         *
         * @param value the prefix; may be empty
         * @return this builder
         */
        public Builder keyPrefix(String value) {
            if (value == null) {
                throw new IllegalArgumentException("RedisBackends keyPrefix must not be null; use \"\" for none");
            }
            this.keyPrefix = value;
            return this;
        }

        /**
         * Connects with TLS or not (default: TLS for a {@code rediss://} URL, or nodes).
         *
         * @param value whether to use TLS
         * @return this builder
         */
        public Builder tls(boolean value) {
            this.tls = value;
            return this;
        }

        /**
         * Sets how long connecting and each command may take (default 5 s).
         *
         * @param value a positive duration
         * @return this builder
         */
        public Builder timeout(Duration value) {
            if (value == null || value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException("RedisBackends timeout must be positive, was " + value);
            }
            this.timeout = value;
            return this;
        }

        /**
         * Sets how long a session's lease lives without being renewed (default 15 s): how soon a
         * session held by a process that died comes free. A lease open in a live process is
         * renewed every third of it; a holder cut off from Redis longer than this loses the
         * session, and its later saves are refused.
         *
         * @param value at least 100 ms
         * @return this builder
         */
        public Builder sessionLease(Duration value) {
            if (value == null || value.compareTo(Duration.ofMillis(100)) < 0) {
                throw new IllegalArgumentException("RedisBackends sessionLease must be at least 100 ms, was " + value);
            }
            this.sessionLease = value;
            return this;
        }

        /**
         * Connects to the server.
         *
         * @return the open backends
         * @throws IllegalArgumentException when the URL is wrong (the message never repeats its password)
         * @throws RedisUnavailableException when the server cannot be reached within the timeout
         */
        public RedisBackends build() {
            RedisConfig config;
            try {
                config = new RedisConfig(url, keyPrefix, tls, timeout, nodes, taskLease, replicas);
            } catch (InvalidSettingException e) {
                throw new IllegalArgumentException("RedisBackends " + e.field() + " " + e.reason(), e);
            }
            // Lettuce reconnects on its own; by default it waits up to 30 s between attempts, so after
            // an outage the first answer could come many seconds after the server is back. Here an
            // attempt is never more than RECONNECT_AT_MOST away.
            ClientResources resources = ClientResources.builder()
                    .reconnectDelay(Delay.exponential(Duration.ofMillis(10), RECONNECT_AT_MOST, 2, TimeUnit.MILLISECONDS))
                    .build();
            SocketOptions socket = SocketOptions.builder().connectTimeout(timeout).build();
            if (config.cluster()) {
                List<RedisURI> seeds = new ArrayList<>();
                for (String node : config.nodes()) {
                    RedisURI uri = RedisURI.create("redis://" + config.clusterUserInfo() + node);
                    uri.setTimeout(timeout);
                    uri.setSsl(config.tls());
                    seeds.add(uri);
                }
                RedisClusterClient client = RedisClusterClient.create(resources, seeds);
                // After a failover the client must learn the new master soon: it refreshes its view
                // of the cluster on every redirection or lost connection, and once a second anyway.
                client.setOptions(ClusterClientOptions.builder()
                        .autoReconnect(true)
                        .socketOptions(socket)
                        .timeoutOptions(TimeoutOptions.enabled(timeout))
                        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                                .enablePeriodicRefresh(Duration.ofSeconds(1))
                                // every adaptive trigger (MOVED, ASK, reconnects, uncovered slots, unknown nodes) is on by default
                                .adaptiveRefreshTriggersTimeout(Duration.ofMillis(100))
                                .build())
                        .build());
                return new RedisBackends(RedisConnection.open(client, resources, config), sessionLease, taskLease);
            }
            RedisURI uri = RedisURI.create(config.url());
            uri.setTimeout(timeout);
            uri.setSsl(config.tls());
            RedisClient client = RedisClient.create(resources, uri);
            client.setOptions(ClientOptions.builder()
                    .autoReconnect(true)
                    .socketOptions(socket)
                    .timeoutOptions(TimeoutOptions.enabled(timeout))
                    .build());
            return new RedisBackends(RedisConnection.open(client, resources, config), sessionLease, taskLease);
        }
    }
}
