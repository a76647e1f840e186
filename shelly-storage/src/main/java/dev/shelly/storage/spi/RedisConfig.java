package dev.shelly.storage.spi;

import dev.shelly.modeladapter.spi.InvalidSettingException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;

/**
 * Where shared backends live: one Redis server that the engine's blackboard, task board, sessions
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
 * }</pre>
 *
 * @param url the server's URL, {@code redis://} or {@code rediss://}, which may carry a user,
 *     a password and a database number; never printed whole (see {@link #safeUrl()})
 * @param keyPrefix the text every key and channel starts with, so that several applications
 *     can share one server; null for {@value #DEFAULT_KEY_PREFIX}
 * @param tls whether to connect with TLS; null for TLS exactly when the URL is {@code rediss://}
 * @param timeout how long connecting and each command may take before it fails; null for 5 s
 */
public record RedisConfig(String url, String keyPrefix, Boolean tls, Duration timeout) {

    /** The key prefix when none is given. */
    public static final String DEFAULT_KEY_PREFIX = "shelly:";
    /** The timeout when none is given. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    /** Fills in the defaults and validates the fields; an error never repeats the URL's password. */
    public RedisConfig {
        if (url == null) {
            throw new InvalidSettingException("url", "missing required field");
        }
        if (url.isBlank()) {
            throw new InvalidSettingException("url", "must not be blank");
        }
        url = url.strip();
        String problem = problemWith(url);
        if (problem != null) {
            throw new InvalidSettingException("url", problem);
        }
        keyPrefix = keyPrefix == null ? DEFAULT_KEY_PREFIX : keyPrefix;
        tls = tls == null ? url.startsWith("rediss://") : tls;
        timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
        if (timeout.isZero() || timeout.isNegative()) {
            throw new InvalidSettingException("timeout", "must be positive, was " + timeout);
        }
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
        return "RedisConfig[url=" + safeUrl() + ", keyPrefix=" + keyPrefix + ", tls=" + tls + ", timeout=" + timeout + "]";
    }
}
