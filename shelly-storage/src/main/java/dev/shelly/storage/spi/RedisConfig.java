package dev.shelly.storage.spi;

import dev.shelly.modeladapter.spi.InvalidSettingException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Where shared backends live: one Redis server (or one Redis Cluster) that the engine's blackboard, task board, sessions
 * and provider rate limits live in, shared by every instance of the engine that names it. The
 * engine binds its {@code redis:} section of {@code config.yaml} onto this record and hands it to
 * a {@link SharedBackendsProvider}; {@code dev.shelly:shelly-redis}, which must be on the class
 * path, opens the backends from it. It lives below the engine so that a backend never sees the
 * engine.
 *
 * <pre>{@code
 * redis:
 *   url: redis://:${REDIS_PASSWORD}@cache.internal:6379/0   # redis:// or rediss:// (TLS)
 *   key_prefix: "shelly:orders:"                             # default shelly:
 *   tls: true                                                # default: true for rediss://
 *   timeout: 2s                                              # default 5s: connect and every command
 *   task_lease: 30s                                          # default 30s: how soon a dead worker's task comes back
 * }</pre>
 *
 * <p>A Redis Cluster is named by its nodes (any of them; the client finds the rest), either as a
 * list or as one URL:
 *
 * <pre>{@code
 * redis:
 *   nodes: ["redis://:${REDIS_PASSWORD}@10.0.0.1:7000", 10.0.0.2:7000, 10.0.0.3:7000]
 *   # or: url: redis-cluster://:${REDIS_PASSWORD}@10.0.0.1:7000,10.0.0.2:7000,10.0.0.3:7000
 *   replicas: 1                                              # default on a cluster: 1 (WAIT for a replica)
 * }</pre>
 *
 * @param url the server's URL, {@code redis://} or {@code rediss://}, which may carry a user,
 *     a password and a database number; never printed whole (see {@link #safeUrl()})
 * @param keyPrefix the text every key and channel starts with, so that several applications
 *     can share one server; null for {@value #DEFAULT_KEY_PREFIX}
 * @param tls whether to connect with TLS; null for TLS exactly when the URL is {@code rediss://}
 *     or the nodes are (a list of nodes mixing {@code rediss://} and {@code redis://} is refused)
 * @param timeout how long connecting and each command may take before it fails; null for 5 s
 * @param nodes the nodes of a Redis Cluster, each {@code host:port} or
 *     {@code redis://[[user]:password@]host:port} ({@code rediss://} for TLS); the credentials
 *     may be given on any one node (or the same on several) and hold for all; null or empty
 *     when {@code url} names the server
 * @param taskLease how long a task board's claim lives without renewal; null for 30 s
 * @param replicas how many replicas must confirm each write before it counts as done
 *     ({@code WAIT}); null for 1 on a cluster and 0 on one server
 */
public record RedisConfig(String url, String keyPrefix, Boolean tls, Duration timeout, List<String> nodes,
        Duration taskLease, Integer replicas) {

    /** The key prefix when none is given. */
    public static final String DEFAULT_KEY_PREFIX = "shelly:";
    /** The timeout when none is given. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    /** The task lease when none is given. */
    public static final Duration DEFAULT_TASK_LEASE = Duration.ofSeconds(30);
    /** The scheme of a URL that names a cluster by its nodes. */
    public static final String CLUSTER_SCHEME = "redis-cluster://";

    /**
     * Fills in the defaults and validates the fields; an error names the field and never repeats
     * a password. A {@code nodes} list becomes a {@code redis-cluster://} URL.
     */
    public RedisConfig {
        boolean listed = nodes != null && !nodes.isEmpty();
        if (listed && url != null) {
            throw new InvalidSettingException("nodes", "give either url (one server, or redis-cluster://) or nodes "
                    + "(a cluster), not both");
        }
        boolean secureNodes = false;
        if (listed) {
            url = clusterUrl(nodes);
            secureNodes = secure(nodes);
        }
        if (url == null) {
            throw new InvalidSettingException("url", "missing required field");
        }
        if (url.isBlank()) {
            throw new InvalidSettingException("url", "must not be blank");
        }
        url = url.strip();
        if (url.startsWith(CLUSTER_SCHEME)) {
            List<String> seeds = new ArrayList<>();
            for (String node : url.substring(CLUSTER_SCHEME.length()).split(",")) {
                seeds.add(node.strip());
            }
            String userInfo = "";
            int at = seeds.getFirst().lastIndexOf('@');
            if (at >= 0) {
                userInfo = seeds.getFirst().substring(0, at + 1);
                seeds.set(0, seeds.getFirst().substring(at + 1));
            }
            for (int i = 0; i < seeds.size(); i++) {
                String problem = problemWith("redis://" + userInfo + seeds.get(i));
                if (problem != null || seeds.get(i).contains("@") || seeds.get(i).contains("/")) {
                    throw new InvalidSettingException(listed ? "nodes[" + i + "]" : "url", "node " + (i + 1)
                            + " is not host:port" + (problem == null ? "" : " (" + problem + ")"));
                }
            }
            nodes = List.copyOf(seeds);
        } else {
            String problem = problemWith(url);
            if (problem != null) {
                throw new InvalidSettingException("url", problem);
            }
            nodes = List.of();
        }
        keyPrefix = keyPrefix == null ? DEFAULT_KEY_PREFIX : keyPrefix;
        tls = tls == null ? url.startsWith("rediss://") || secureNodes : tls;
        timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
        if (timeout.isZero() || timeout.isNegative()) {
            throw new InvalidSettingException("timeout", "must be positive, was " + timeout);
        }
        taskLease = taskLease == null ? DEFAULT_TASK_LEASE : taskLease;
        if (taskLease.compareTo(Duration.ofMillis(100)) < 0) {
            throw new InvalidSettingException("task_lease", "must be at least 100ms, was " + taskLease);
        }
        replicas = replicas == null ? (url.startsWith(CLUSTER_SCHEME) ? 1 : 0) : replicas;
        if (replicas < 0) {
            throw new InvalidSettingException("replicas", "must not be negative, was " + replicas);
        }
    }

    /**
     * A configuration of one server, with the default task lease and no replica to wait for
     * (or, for a {@code redis-cluster://} URL, one).
     *
     * @param url the server's URL, or a cluster's
     * @param keyPrefix the key prefix; null for the default
     * @param tls whether to use TLS; null for TLS exactly when the URL is {@code rediss://}
     * @param timeout the timeout; null for 5 s
     */
    public RedisConfig(String url, String keyPrefix, Boolean tls, Duration timeout) {
        this(url, keyPrefix, tls, timeout, null, null, null);
    }

    /**
     * Whether this names a Redis Cluster rather than one server.
     *
     * @return true for {@code nodes} or a {@code redis-cluster://} URL
     */
    public boolean cluster() {
        return !nodes.isEmpty();
    }

    /**
     * The user info of a cluster URL ({@code user:password@}, or empty), which every node shares.
     *
     * @return the user info with its {@code @}, or an empty string
     */
    public String clusterUserInfo() {
        if (!cluster()) {
            return "";
        }
        String first = url.substring(CLUSTER_SCHEME.length()).split(",")[0];
        int at = first.lastIndexOf('@');
        return at < 0 ? "" : first.substring(0, at + 1);
    }

    /**
     * The nodes as one {@code redis-cluster://} URL, the user info (which any one node may carry,
     * the others then take it too) written once, before the first node.
     */
    private static String clusterUrl(List<String> nodes) {
        List<String> hostPorts = new ArrayList<>();
        String userInfo = "";
        int carrier = -1;
        for (int i = 0; i < nodes.size(); i++) {
            String node = nodes.get(i);
            if (node == null || node.isBlank()) {
                throw new InvalidSettingException("nodes[" + i + "]", "must not be blank");
            }
            node = node.strip();
            if (node.startsWith("redis://") || node.startsWith("rediss://")) {
                String problem = problemWith(node);
                if (problem != null) {
                    throw new InvalidSettingException("nodes[" + i + "]", problem);
                }
                URI uri = URI.create(node);
                if (uri.getPort() < 0) {
                    throw new InvalidSettingException("nodes[" + i + "]", "names no port; expected e.g. redis://10.0.0.1:7000");
                }
                if (uri.getRawUserInfo() != null) {
                    String info = uri.getRawUserInfo() + "@";
                    if (carrier >= 0 && !userInfo.equals(info)) {
                        throw new InvalidSettingException("nodes[" + i + "]", "has other credentials than nodes["
                                + carrier + "]; every node of a cluster takes the same");
                    }
                    userInfo = info;
                    carrier = i;
                }
                node = uri.getHost() + ":" + uri.getPort();
            } else if (node.contains("://")) {
                throw new InvalidSettingException("nodes[" + i + "]", "must be host:port or redis://host:port, got '"
                        + node.substring(0, node.indexOf("://")) + "://'");
            }
            hostPorts.add(node);
        }
        return CLUSTER_SCHEME + userInfo + String.join(",", hostPorts);
    }

    /**
     * Whether the nodes ask for TLS: true when a node is {@code rediss://}; refused when another
     * is {@code redis://}, since every node of a cluster is reached the same way.
     */
    private static boolean secure(List<String> nodes) {
        int secure = -1;
        int plain = -1;
        for (int i = 0; i < nodes.size(); i++) {
            String node = nodes.get(i).strip();
            if (node.startsWith("rediss://") && secure < 0) {
                secure = i;
            } else if (node.startsWith("redis://") && plain < 0) {
                plain = i;
            }
            if (secure >= 0 && plain >= 0) {
                String tls = "rediss:// (TLS)";
                throw new InvalidSettingException("nodes[" + i + "]", "is " + (secure == i ? tls : "redis://")
                        + " but nodes[" + Math.min(secure, plain) + "] is " + (secure == i ? "redis://" : tls)
                        + "; every node of a cluster takes the same");
            }
        }
        return secure >= 0;
    }

    /**
     * A configuration with the default prefix and timeout; TLS when the URL is {@code rediss://}.
     *
     * @param url the server's URL
     * @return the configuration
     */
    public static RedisConfig of(String url) {
        return new RedisConfig(url, DEFAULT_KEY_PREFIX, url != null && url.startsWith("rediss://"), DEFAULT_TIMEOUT);
    }

    /**
     * The URL without user and password, for messages and logs.
     *
     * @return e.g. {@code redis://cache.internal:6379}
     */
    public String safeUrl() {
        if (cluster()) {
            return CLUSTER_SCHEME + String.join(",", nodes);
        }
        URI uri = URI.create(url.strip());
        return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
    }

    /** What is wrong with a URL, in words that never include its user info, or null when it is fine. */
    static String problemWith(String url) {
        URI uri;
        try {
            uri = new URI(url.strip());
        } catch (URISyntaxException e) {
            return "is not a valid URL (" + e.getReason() + ")";
        }
        if (!"redis".equals(uri.getScheme()) && !"rediss".equals(uri.getScheme())) {
            return "must start with redis:// or rediss://, got "
                    + (uri.getScheme() == null ? "no scheme" : "'" + uri.getScheme() + "://'");
        }
        if (uri.getHost() == null || uri.getHost().isBlank()) {
            return "names no host; expected e.g. redis://localhost:6379";
        }
        return null;
    }

    @Override
    public String toString() {
        return "RedisConfig[url=" + safeUrl() + ", keyPrefix=" + keyPrefix + ", tls=" + tls + ", timeout=" + timeout
                + (taskLease.equals(DEFAULT_TASK_LEASE) ? "" : ", taskLease=" + taskLease)
                + (replicas == (cluster() ? 1 : 0) ? "" : ", replicas=" + replicas) + "]";
    }
}
