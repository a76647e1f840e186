package dev.shelly.provider.spi;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;

/**
 * The HTTP client whose connection pool and dispatcher every provider shares.
 *
 * <p>{@link #shared()} is one client for the whole process, created on first use; each
 * provider derives its own timeouts from it, which keeps the pool. The client is OkHttp's, but
 * no OkHttp type is part of Shelly's API: a proxy comes from the JVM's default
 * {@link java.net.ProxySelector} ({@code https.proxyHost} and friends), TLS from the default
 * {@code SSLContext}.
 */
final class HttpTransport {
    /** How many idle connections the shared pool keeps. */
    static final int MAX_IDLE = 1024;

    private final OkHttpClient client;

    private HttpTransport(OkHttpClient client) {
        this.client = client;
    }

    /**
     * The process-wide transport: one connection pool keeping up to {@value #MAX_IDLE} idle
     * connections 5 minutes each. An HTTP/1.1 connection carries one call at a time, so 1,000
     * agents calling at once hold 1,000 connections; a pool that kept fewer would close the rest
     * after each wave and open them again for the next.
     *
     * @return the shared transport
     */
    static HttpTransport shared() {
        return Shared.INSTANCE;
    }

    /** A transport over another client, whose pool and dispatcher every provider using it shares. */
    static HttpTransport of(OkHttpClient client) {
        if (client == null) {
            throw new IllegalArgumentException("HttpTransport client must not be null");
        }
        return new HttpTransport(client);
    }

    /** The underlying client. */
    OkHttpClient client() {
        return client;
    }

    /** A client sharing this transport's pool and dispatcher, with the given timeouts (zero: none). */
    OkHttpClient withTimeouts(Duration connect, Duration read, Duration call) {
        return client.newBuilder()
                .connectTimeout(connect.toMillis(), TimeUnit.MILLISECONDS)
                .readTimeout(read.toMillis(), TimeUnit.MILLISECONDS)
                .writeTimeout(read.toMillis(), TimeUnit.MILLISECONDS)
                .callTimeout(call.toMillis(), TimeUnit.MILLISECONDS)
                .build();
    }

    @Override
    public String toString() {
        return "HttpTransport[" + client.connectionPool().connectionCount() + " connections]";
    }

    /** Holds the shared transport; initialised on first use only. */
    private static final class Shared {
        static final HttpTransport INSTANCE = new HttpTransport(new OkHttpClient.Builder()
                .connectionPool(new ConnectionPool(MAX_IDLE, 5, TimeUnit.MINUTES))
                .build());
    }
}
