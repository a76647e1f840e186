package dev.shelly.provider.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.shelly.modeladapter.ModelException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.IntStream;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HttpTransportTest {
    private static final int LIMIT = HttpTransport.SHARD_CALLS;

    @StartStop
    private final MockWebServer server = new MockWebServer();

    private final Function<ErrorResponse, ModelException> errors =
            r -> r.toException(ErrorResponse.kindForStatus(r.status()), r.bodyExcerpt(), null).build();

    @Test
    void theSharedTransportIsShardedWithAPoolOfItsOwnPerShard() {
        HttpTransport shared = HttpTransport.shared();
        assertThat(shared.shards()).isEqualTo(HttpTransport.SHARDS);
        Set<Object> pools = new HashSet<>();
        Set<Object> dispatchers = new HashSet<>();
        for (int i = 0; i < shared.shards(); i++) {
            pools.add(shared.client(i).connectionPool());
            dispatchers.add(shared.client(i).dispatcher());
        }
        assertThat(pools).hasSize(HttpTransport.SHARDS);
        assertThat(dispatchers).hasSize(HttpTransport.SHARDS);
        for (int i = 1; i < shared.shards(); i++) { // TLS set up once, not once per shard
            assertThat(shared.client(i).sslSocketFactory()).isSameAs(shared.client(0).sslSocketFactory());
            assertThat(shared.client(i).x509TrustManager()).isSameAs(shared.client(0).x509TrustManager());
        }
        assertThat(HttpTransport.SHARDS * LIMIT).isEqualTo(HttpTransport.MAX_IDLE);
    }

    @Test
    void callsFillTheFirstShardThenTheNextThenGoToTheLeastBusy() {
        HttpTransport transport = HttpTransport.sharded(3);
        assertThat(IntStream.range(0, LIMIT).map(i -> transport.acquire())).containsOnly(0);
        assertThat(transport.acquire()).isEqualTo(1);
        IntStream.range(1, LIMIT).forEach(i -> transport.acquire());
        IntStream.range(0, LIMIT).forEach(i -> transport.acquire());
        assertThat(List.of(transport.callsUnderWay(0), transport.callsUnderWay(1), transport.callsUnderWay(2)))
                .containsExactly(LIMIT, LIMIT, LIMIT);
        // every shard full: the least busy one, the first of equals
        assertThat(transport.acquire()).isEqualTo(0);
        assertThat(transport.acquire()).isEqualTo(1);
        transport.release(2);
        transport.release(1);
        transport.release(1);
        // a shard below the limit again takes the next call, the first such one first
        assertThat(transport.acquire()).isEqualTo(1);
        assertThat(transport.acquire()).isEqualTo(2);
        assertThat(transport.acquire()).isEqualTo(1);
    }

    @Test
    void concurrentCallersNeverPutMoreThanTheLimitInAShardWhileAnotherHasRoom() throws Exception {
        HttpTransport transport = HttpTransport.sharded(4);
        int callers = 3 * LIMIT + 10;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                transport.acquire();
            }));
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertThat(List.of(transport.callsUnderWay(0), transport.callsUnderWay(1), transport.callsUnderWay(2),
                transport.callsUnderWay(3))).containsExactly(LIMIT, LIMIT, LIMIT, 10);

        List<Thread> releasing = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            int shard = i < 3 * LIMIT ? i / LIMIT : 3;
            releasing.add(Thread.ofVirtual().start(() -> transport.release(shard)));
        }
        for (Thread t : releasing) {
            t.join();
        }
        assertThat(IntStream.range(0, 4).map(transport::callsUnderWay)).containsOnly(0);
    }

    @Test
    void aTransportOverAGivenClientHasOneShardAndCountsNothing() {
        HttpTransport transport = HttpTransport.of(new okhttp3.OkHttpClient());
        assertThat(transport.shards()).isEqualTo(1);
        assertThat(transport.acquire()).isZero();
        assertThat(transport.callsUnderWay(0)).isZero();
        transport.release(0);
        assertThat(transport.callsUnderWay(0)).isZero();
    }

    @Test
    void callsOneAtATimeReuseOneConnection() throws Exception {
        HttpModelClient client = client(HttpTransport.sharded(4));
        for (int i = 0; i < 3; i++) {
            server.enqueue(new MockResponse.Builder().body("{}").build());
        }
        for (int i = 0; i < 3; i++) {
            run(true, () -> client.post("chat", json(), errors));
        }
        Set<Integer> connections = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            connections.add(server.takeRequest().getConnectionIndex());
        }
        assertThat(connections).hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void everyCallGivesItsShardBackHoweverItEnds(boolean virtual) throws Exception {
        HttpTransport transport = HttpTransport.sharded(2);
        HttpModelClient client = client(transport);
        server.enqueue(new MockResponse.Builder().body("{}").build());
        server.enqueue(new MockResponse.Builder().code(500).body("{\"error\":\"down\"}").build());
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/event-stream")
                .body("data: 1\n\ndata: [DONE]\n\n").build());
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/event-stream")
                .body("data: 1\n\n").build());
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/event-stream")
                .body("data: 1\n\ndata: [DONE]\n\n").build());

        run(virtual, () -> client.post("chat", json(), errors));
        assertThatThrownBy(() -> run(virtual, () -> client.post("chat", json(), errors)))
                .isInstanceOf(ModelException.class);
        run(virtual, () -> client.stream("chat", json(), errors, e -> e.data().equals("[DONE]"), e -> { }));
        assertThatThrownBy(() -> run(virtual, () -> client.stream("chat", json(), errors, e -> false, e -> { })))
                .isInstanceOf(ModelException.class);
        assertThatThrownBy(() -> run(virtual, () -> client.stream("chat", json(), errors, e -> false, e -> {
            throw new IllegalStateException("handler failed");
        }))).isInstanceOf(IllegalStateException.class);

        // a platform caller's call ends on a virtual thread of its own, just after the caller returns
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (transport.callsUnderWay(0) != 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(transport.callsUnderWay(0)).isZero();
        assertThat(transport.callsUnderWay(1)).isZero();
    }

    @Test
    void concurrentCallsBeyondAShardsLimitSpreadOverShardsAndAllEnd() throws Exception {
        HttpTransport transport = HttpTransport.sharded(3);
        HttpModelClient client = client(transport);
        int calls = LIMIT + 8;
        CountDownLatch arrived = new CountDownLatch(calls);
        CountDownLatch answer = new CountDownLatch(1);
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
                arrived.countDown();
                answer.await(10, TimeUnit.SECONDS);
                return new MockResponse.Builder().body("{}").build();
            }
        });
        Set<Integer> connections = ConcurrentHashMap.newKeySet();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    client.post("chat", json(), errors);
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        assertThat(arrived.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(List.of(transport.callsUnderWay(0), transport.callsUnderWay(1), transport.callsUnderWay(2)))
                .containsExactly(LIMIT, 8, 0);
        answer.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertThat(failure.get()).isNull();
        for (int i = 0; i < calls; i++) {
            connections.add(server.takeRequest().getConnectionIndex());
        }
        assertThat(connections).hasSize(calls);
        assertThat(List.of(transport.callsUnderWay(0), transport.callsUnderWay(1))).containsExactly(0, 0);
        assertThat(transport.client(0).connectionPool().idleConnectionCount()).isEqualTo(LIMIT);
        assertThat(transport.client(1).connectionPool().idleConnectionCount()).isEqualTo(8);
    }

    @Test
    void aReadTimeoutNoShorterThanTheCallDeadlineIsLeftToTheDeadline() {
        HttpTransport transport = HttpTransport.sharded(2);
        HttpTransport.Timed defaults = transport.withTimeouts(Duration.ofSeconds(10), Duration.ofMinutes(10),
                Duration.ofMinutes(10));
        HttpTransport.Timed longer = transport.withTimeouts(Duration.ofSeconds(10), Duration.ofMinutes(11),
                Duration.ofMinutes(10));
        HttpTransport.Timed shorter = transport.withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(30),
                Duration.ofMinutes(10));
        HttpTransport.Timed noDeadline = transport.withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(30),
                Duration.ZERO);
        for (int shard = 0; shard < 2; shard++) {
            assertThat(defaults.client(shard).readTimeoutMillis()).isZero();
            assertThat(defaults.client(shard).writeTimeoutMillis()).isZero();
            assertThat(longer.client(shard).readTimeoutMillis()).isZero();
            assertThat(shorter.client(shard).readTimeoutMillis()).isEqualTo(30_000);
            assertThat(shorter.client(shard).writeTimeoutMillis()).isEqualTo(30_000);
            assertThat(noDeadline.client(shard).readTimeoutMillis()).isEqualTo(30_000);
            assertThat(defaults.client(shard).callTimeoutMillis()).isEqualTo(600_000);
            assertThat(defaults.client(shard).connectTimeoutMillis()).isEqualTo(10_000);
            assertThat(defaults.client(shard).connectionPool()).isSameAs(transport.client(shard).connectionPool());
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aSilentServerIsCutOffAtTheDeadlineWhenTheReadTimeoutIsAsLong(boolean virtual) {
        assertThat(silentCall(virtual, Duration.ofMillis(400), Duration.ofMillis(400)))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ModelException.Kind.TIMEOUT);
                    assertThat(e.retryable()).isFalse();
                })
                .hasMessage("test: timeout: no complete reply within the call deadline of 400 ms");
    }

    @Test
    void aReadTimeoutShorterThanTheDeadlineStillEndsASilentCall() {
        assertThat(silentCall(true, Duration.ofMillis(300), Duration.ofSeconds(20)))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ModelException.Kind.TIMEOUT);
                    assertThat(e.getMessage()).doesNotContain("call deadline");
                });
    }

    /** What a call to a server that answers only after 5 s threw; it threw well within 4 s. */
    private Throwable silentCall(boolean virtual, Duration read, Duration deadline) {
        server.enqueue(new MockResponse.Builder().body("{}").headersDelay(5, TimeUnit.SECONDS).build());
        HttpModelClient client = HttpModelClient.builder("test", server.url("/v1/").toString())
                .transport(HttpTransport.sharded(2))
                .timeouts(Duration.ofSeconds(5), read, deadline)
                .build();
        long start = System.nanoTime();
        Throwable thrown = catchThrowable(() -> run(virtual, () -> client.post("chat", json(), errors)));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
        return thrown;
    }

    private HttpModelClient client(HttpTransport transport) {
        return HttpModelClient.builder("test", server.url("/v1/").toString())
                .transport(transport)
                .timeouts(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(20))
                .build();
    }

    private static byte[] json() {
        return "{}".getBytes(StandardCharsets.UTF_8);
    }

    private static void run(boolean virtual, Runnable call) {
        HttpModelClientTest.onThread(virtual, () -> {
            call.run();
            return null;
        });
    }
}
