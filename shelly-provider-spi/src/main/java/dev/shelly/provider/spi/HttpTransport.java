package dev.shelly.provider.spi;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import okhttp3.Call;
import okhttp3.ConnectionPool;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;
import okhttp3.Request;

/**
 * The HTTP client whose connection pool and dispatcher every provider shares.
 *
 * <p>{@link #shared()} is one transport for the whole process, created on first use; each
 * provider derives its own timeouts from it, which keeps the pool. The client is OkHttp's, but
 * no OkHttp type is part of Shelly's API: a proxy comes from the JVM's default
 * {@link java.net.ProxySelector} ({@code https.proxyHost} and friends), TLS from the default
 * {@code SSLContext}.
 *
 * <p>The shared pool is split into {@value #SHARDS} shards, each an OkHttp pool of its own with
 * its own dispatcher. OkHttp finds a free connection for a call by trying every connection of
 * its pool in turn, so with one pool of 1,000 connections, 1,000 calls at once tried 500 each
 * on average. A call goes to the first shard with fewer than {@value #SHARD_CALLS} calls under
 * way, and when every shard has that many, to the one with the fewest; so a shard's pool holds
 * about {@value #SHARD_CALLS} connections and a call tries at most about that many. Up to
 * {@value #SHARD_CALLS} calls at once all go to the first shard, exactly as with one pool: a
 * process that calls one at a time keeps reusing one connection, and an HTTP/2 server gets
 * one connection for them.
 */
final class HttpTransport {
    /** How many idle connections the shared pool keeps, over all its shards. */
    static final int MAX_IDLE = 1024;
    /** How many shards the shared pool has. */
    static final int SHARDS = 16;
    /** How many calls under way a shard takes before the next one is used. */
    static final int SHARD_CALLS = MAX_IDLE / SHARDS;

    /** One client per shard, all alike but for their pools and dispatchers. */
    private final OkHttpClient[] clients;
    /** The calls under way in each shard. */
    private final AtomicIntegerArray calls;

    private HttpTransport(OkHttpClient[] clients) {
        this.clients = clients;
        this.calls = new AtomicIntegerArray(clients.length);
    }

    /**
     * The process-wide transport: {@value #SHARDS} connection pools keeping up to
     * {@value #SHARD_CALLS} idle connections each ({@value #MAX_IDLE} in all), 5 minutes each.
     * An HTTP/1.1 connection carries one call at a time, so 1,000 agents calling at once hold
     * 1,000 connections; a pool that kept fewer would close the rest after each wave and open
     * them again for the next.
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
        return new HttpTransport(new OkHttpClient[] {client});
    }

    /** A transport of {@code shards} pools keeping {@link #SHARD_CALLS} idle connections each. */
    static HttpTransport sharded(int shards) {
        OkHttpClient[] clients = new OkHttpClient[shards];
        // The first client sets up TLS (the platform's trust manager and socket factory); the
        // others are derived from it, so they share that and differ only in pool and dispatcher.
        clients[0] = new OkHttpClient.Builder()
                .connectionPool(new ConnectionPool(SHARD_CALLS, 5, TimeUnit.MINUTES))
                .build();
        for (int i = 1; i < shards; i++) {
            clients[i] = clients[0].newBuilder()
                    .connectionPool(new ConnectionPool(SHARD_CALLS, 5, TimeUnit.MINUTES))
                    .dispatcher(new Dispatcher())
                    .build();
        }
        return new HttpTransport(clients);
    }

    /** How many shards this transport has. */
    int shards() {
        return clients.length;
    }

    /** The client of a shard. */
    OkHttpClient client(int shard) {
        return clients[shard];
    }

    /**
     * Takes a shard for one call: the first with fewer than {@value #SHARD_CALLS} calls under
     * way, else the one with the fewest. Give it back with {@link #release(int)} once the call
     * has ended, its body read or closed.
     */
    int acquire() {
        int n = clients.length;
        if (n == 1) {
            return 0;
        }
        int fewest = 0;
        int fewestCalls = Integer.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            int c = calls.get(i);
            while (c < SHARD_CALLS) {
                if (calls.compareAndSet(i, c, c + 1)) {
                    return i;
                }
                c = calls.get(i);
            }
            if (c < fewestCalls) {
                fewest = i;
                fewestCalls = c;
            }
        }
        calls.incrementAndGet(fewest);
        return fewest;
    }

    /** Gives back a shard {@link #acquire()} took. */
    void release(int shard) {
        if (clients.length > 1) {
            calls.decrementAndGet(shard);
        }
    }

    /** The calls under way in a shard, as {@link #acquire()} counts them. */
    int callsUnderWay(int shard) {
        return calls.get(shard);
    }

    /**
     * Clients sharing this transport's pools and dispatchers, with the given timeouts (zero:
     * none). A read timeout at least as long as the call's deadline cannot end a call before
     * the deadline does (the silence it waits for starts after the call did), so it is left to
     * the deadline: the socket then reads and writes without a timer of its own for every wait.
     */
    Timed withTimeouts(Duration connect, Duration read, Duration call) {
        long readMillis = !call.isZero() && read.compareTo(call) >= 0 ? 0 : read.toMillis();
        OkHttpClient[] timed = new OkHttpClient[clients.length];
        for (int i = 0; i < timed.length; i++) {
            timed[i] = clients[i].newBuilder()
                    .connectTimeout(connect.toMillis(), TimeUnit.MILLISECONDS)
                    .readTimeout(readMillis, TimeUnit.MILLISECONDS)
                    .writeTimeout(readMillis, TimeUnit.MILLISECONDS)
                    .callTimeout(call.toMillis(), TimeUnit.MILLISECONDS)
                    .build();
        }
        return new Timed(this, timed);
    }

    @Override
    public String toString() {
        int connections = Arrays.stream(clients).mapToInt(c -> c.connectionPool().connectionCount()).sum();
        return "HttpTransport[" + connections + " connections]";
    }

    /** A transport's clients with one provider's timeouts: the same pools, shard for shard. */
    static final class Timed {
        private final HttpTransport transport;
        private final OkHttpClient[] clients;

        private Timed(HttpTransport transport, OkHttpClient[] clients) {
            this.transport = transport;
            this.clients = clients;
        }

        /** Takes a shard for one call; see {@link HttpTransport#acquire()}. */
        int acquire() {
            return transport.acquire();
        }

        /** A call in a shard taken with {@link #acquire()}. */
        Call newCall(int shard, Request request) {
            return clients[shard].newCall(request);
        }

        /** Gives back a shard once its call has ended. */
        void release(int shard) {
            transport.release(shard);
        }

        /** The client of a shard. */
        OkHttpClient client(int shard) {
            return clients[shard];
        }
    }

    /** Holds the shared transport; initialised on first use only. */
    private static final class Shared {
        static final HttpTransport INSTANCE = sharded(SHARDS);
    }
}
