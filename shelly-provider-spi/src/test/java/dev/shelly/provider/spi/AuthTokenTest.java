package dev.shelly.provider.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.modeladapter.ModelException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;

/** A bearer token from a source (Entra ID): fetched once, renewed before it expires, never shown. */
class AuthTokenTest {
    @StartStop
    private final MockWebServer server = new MockWebServer();

    private volatile Instant now = Instant.parse("2026-11-27T12:00:00Z");
    private final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    };

    private String sendAndReadAuthorization(HttpModelClient client) throws Exception {
        server.enqueue(new MockResponse.Builder().body("{}").build());
        client.post("chat", "{}".getBytes(StandardCharsets.UTF_8), r -> r.toException(
                ErrorResponse.kindForStatus(r.status()), null, null).build());
        return server.takeRequest().getHeaders().get("Authorization");
    }

    @Test
    void aTokenIsFetchedOnceAndRenewedTwoMinutesBeforeItExpires() throws Exception {
        AtomicInteger fetches = new AtomicInteger();
        TokenSource source = () -> new AccessToken("token-" + fetches.incrementAndGet(), now.plus(Duration.ofHours(1)));
        Auth auth = Auth.bearer(source, clock);
        HttpModelClient client = HttpModelClient.builder("azure-openai", server.url("/").toString()).auth(auth).build();

        assertThat(sendAndReadAuthorization(client)).isEqualTo("Bearer token-1");
        now = now.plus(Duration.ofMinutes(57));
        assertThat(sendAndReadAuthorization(client)).isEqualTo("Bearer token-1");
        now = now.plus(Duration.ofMinutes(1));
        assertThat(sendAndReadAuthorization(client)).as("within two minutes of expiry").isEqualTo("Bearer token-2");
        assertThat(fetches).hasValue(2);
        assertThat(auth.toString()).isEqualTo("Auth[Authorization: Bearer ****]");
        assertThat(new AccessToken("secret-token", now).toString()).doesNotContain("secret-token");
    }

    @Test
    void concurrentRequestsShareOneFetch() throws Exception {
        AtomicInteger fetches = new AtomicInteger();
        CountDownLatch fetching = new CountDownLatch(1);
        TokenSource slow = () -> {
            fetches.incrementAndGet();
            fetching.countDown();
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new AccessToken("shared", now.plus(Duration.ofHours(1)));
        };
        Auth auth = Auth.bearer(slow, clock);
        HttpModelClient client = HttpModelClient.builder("azure-openai", server.url("/").toString()).auth(auth).build();
        for (int i = 0; i < 6; i++) {
            server.enqueue(new MockResponse.Builder().body("{}").build());
        }
        try (ExecutorService pool = Executors.newFixedThreadPool(6)) {
            List<Future<byte[]>> calls = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                calls.add(pool.submit(() -> client.post("chat", "{}".getBytes(StandardCharsets.UTF_8),
                        r -> r.toException(ErrorResponse.kindForStatus(r.status()), null, null).build())));
            }
            assertThat(fetching.await(5, TimeUnit.SECONDS)).isTrue();
            for (Future<byte[]> call : calls) {
                call.get(5, TimeUnit.SECONDS);
            }
        }
        for (int i = 0; i < 6; i++) {
            assertThat(server.takeRequest().getHeaders().get("Authorization")).isEqualTo("Bearer shared");
        }
        assertThat(fetches).hasValue(1);
    }

    @Test
    void aSourceThatFailsIsAnAuthenticationFailure() {
        Auth auth = Auth.bearer(() -> {
            throw new IllegalStateException("no managed identity endpoint");
        }, clock);
        HttpModelClient client = HttpModelClient.builder("azure-openai", server.url("/").toString()).auth(auth).build();

        assertThatThrownBy(() -> client.post("chat", "{}".getBytes(StandardCharsets.UTF_8), r -> null))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ModelException.Kind.AUTHENTICATION);
                    assertThat(e.getMessage()).isEqualTo("authentication: the token source failed: no managed "
                            + "identity endpoint");
                });
        assertThat(server.getRequestCount()).isZero();
    }
}
