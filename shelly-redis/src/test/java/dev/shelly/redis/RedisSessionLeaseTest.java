package dev.shelly.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.chats.ShellyException;
import dev.shelly.storage.spi.FileSessionStore;
import dev.shelly.storage.SessionBusyException;
import dev.shelly.storage.SessionRecord;
import dev.shelly.storage.spi.SessionStore;
import dev.shelly.modeladapter.Usage;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/** What is particular to the Redis session store: its lease's time to live, its keys and its JSON. */
class RedisSessionLeaseTest {
    private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

    private static SessionRecord record(String id, long version, String... texts) {
        List<Message> messages = new ArrayList<>();
        for (String t : texts) {
            messages.add(Message.user(t));
        }
        return new SessionRecord(id, "a", T0, T0.plusSeconds(version), messages, version, Usage.of(version, 1));
    }

    private static RedisBackends backends(String prefix, Duration lease) {
        return RedisBackends.builder(SharedRedis.server().url()).keyPrefix(prefix).sessionLease(lease).build();
    }

    private static List<String> texts(SessionStore store, String id) {
        try (SessionStore.Lease lease = store.open(id, Duration.ofSeconds(30))) {
            return lease.load().orElseThrow().messages().stream().map(Message::text).toList();
        }
    }

    @Test
    void aLeaseThatLapsedRefusesToWriteAndNeverOverwritesTheNextHoldersTurn() {
        String prefix = SharedRedis.freshName() + ":";
        try (RedisBackends one = backends(prefix, Duration.ofMillis(300));
                RedisBackends two = backends(prefix, Duration.ofMillis(300))) {
            RedisSessionStore cutOff = one.sessionStore("sessions");
            SessionStore.Lease late = cutOff.open("s", Duration.ZERO);
            assertThat(late.save(record("s", 1, "first"))).isTrue();
            // Its holder stops renewing, as one cut off from Redis or stalled longer than the lease would.
            cutOff.close();

            SessionStore next = two.sessionStore("sessions");
            try (SessionStore.Lease taken = next.open("s", Duration.ofSeconds(30))) {
                assertThat(taken.load().orElseThrow().version()).isEqualTo(1);
                assertThat(taken.save(record("s", 2, "first", "second"))).isTrue();

                assertThatThrownBy(() -> late.save(record("s", 3, "first", "late")))
                        .isInstanceOfSatisfying(SessionBusyException.class, e -> assertThat(e.id()).isEqualTo("s"))
                        .hasMessage("session 's' was not saved: its lease expired (it was not renewed within 300 ms) "
                                + "and another engine or process may hold it now; nothing was written");
                assertThatThrownBy(late::load).isInstanceOf(SessionBusyException.class)
                        .hasMessageStartingWith("session 's' was not loaded: its lease expired");
                assertThatThrownBy(late::delete).isInstanceOf(SessionBusyException.class)
                        .hasMessageStartingWith("session 's' was not deleted: its lease expired");
                late.close();
                assertThat(taken.save(record("s", 3, "first", "second", "third"))).as("the late close let nothing go")
                        .isTrue();
            }
            assertThat(texts(next, "s")).containsExactly("first", "second", "third");
        }
    }

    @Test
    void anOpenLeaseIsRenewedPastItsTimeToLive() throws Exception {
        String prefix = SharedRedis.freshName() + ":";
        try (RedisBackends one = backends(prefix, Duration.ofMillis(300));
                RedisBackends two = backends(prefix, Duration.ofMillis(300))) {
            SessionStore holder = one.sessionStore("sessions");
            SessionStore other = two.sessionStore("sessions");
            try (SessionStore.Lease held = holder.open("s", Duration.ZERO)) {
                assertThatThrownBy(() -> other.open("s", Duration.ofMillis(1500)))
                        .as("held for five times the lease's time to live")
                        .isInstanceOf(SessionBusyException.class);
                assertThat(held.save(record("s", 1, "still mine"))).isTrue();
            }
            assertThat(texts(other, "s")).containsExactly("still mine");
        }
    }

    @Test
    void keysUnderThePrefixHoldTheFileStoresJson(@TempDir Path dir) throws Exception {
        String prefix = SharedRedis.freshName() + ":";
        SessionRecord saved = record("s-1", 4, "hello");
        try (RedisBackends redis = backends(prefix, Duration.ofSeconds(10));
                RedisClient client = RedisClient.create(SharedRedis.server().url());
                StatefulRedisConnection<String, String> raw = client.connect()) {
            RedisCommands<String, String> c = raw.sync();
            RedisSessionStore store = redis.sessionStore("chats");
            assertThat(store.leaseTtl()).isEqualTo(Duration.ofSeconds(10));
            try (SessionStore.Lease lease = store.open("s-1", Duration.ZERO)) {
                assertThat(c.get(prefix + "chats:lease:s-1")).matches("[0-9a-f]{32}");
                assertThat(c.pttl(prefix + "chats:lease:s-1")).isBetween(1L, 10_000L);
                lease.save(saved);
            }
            assertThat(c.exists(prefix + "chats:lease:s-1")).as("released on close").isZero();
            assertThat(c.smembers(prefix + "chats:ids")).containsExactly("s-1");
            assertThat(c.hget(prefix + "chats:session:s-1", "version")).isEqualTo("4");

            FileSessionStore files = new FileSessionStore(dir, JsonMapper.builder().build());
            try (SessionStore.Lease lease = files.open("s-1", Duration.ZERO)) {
                lease.save(saved);
            }
            JsonMapper json = JsonMapper.builder().build();
            assertThat(json.readTree(c.hget(prefix + "chats:session:s-1", "json")))
                    .isEqualTo(json.readTree(Files.readString(dir.resolve("s-1.json"))));

            c.hset(prefix + "chats:session:s-1", "json", "{\"entry_agent\":\"a\",\"mess");
            assertThatThrownBy(() -> texts(store, "s-1"))
                    .isInstanceOf(ShellyException.class)
                    .hasMessageStartingWith("session 's-1' in " + prefix + "chats: is not a valid session: ");
        }
        try (RedisBackends redis = backends(prefix, Duration.ofSeconds(10))) {
            RedisSessionStore closed = redis.sessionStore("chats");
            closed.close();
            assertThatThrownBy(() -> closed.open("s-1", Duration.ZERO))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("RedisSessionStore " + prefix + "chats: is closed: it renews no lease");
        }
        assertThatThrownBy(() -> RedisBackends.builder("redis://h").sessionLease(Duration.ofMillis(99)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RedisBackends sessionLease must be at least 100 ms, was PT0.099S");
    }
}
