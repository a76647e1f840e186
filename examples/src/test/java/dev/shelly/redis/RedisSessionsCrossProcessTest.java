package dev.shelly.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.agent.PendingCall;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import dev.shelly.storage.spi.SessionStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Two JVMs with engines on one Redis and one session id: every acknowledged turn is stored, also
 * when one JVM is killed while it holds the session.
 */
class RedisSessionsCrossProcessTest {

    private static List<String> userTexts(SessionStore store, String id) {
        try (SessionStore.Lease lease = store.open(id, Duration.ofSeconds(60))) {
            return lease.load().orElseThrow().messages().stream().filter(m -> m.role() == Role.USER)
                    .map(Message::text).toList();
        }
    }

    @Test
    void twoJvmsTakingTurnsOnOneSessionLoseNoTurn() throws Exception {
        String prefix = SharedRedis.freshName() + ":";
        int turns = 25;
        try (RedisBackends redis = RedisBackends.builder(SharedRedis.server().url()).keyPrefix(prefix).build();
                Engine engine = SessionWorkerMain.engine(redis).build()) {
            String id;
            try (Session s = engine.newSession("shared-1")) {
                s.send("hello");
                id = s.id();
            }
            ChildJvm child = ChildJvm.launch(SessionWorkerMain.class, "turns", SharedRedis.server().url(), prefix, "15000", id, String.valueOf(turns),
                    "child ");
            child.awaitReady();
            child.go();
            for (int i = 0; i < turns; i++) {
                try (Session s = engine.resume(id)) {
                    assertThat(s.send("parent " + i).text()).isEqualTo("re: parent " + i);
                }
            }
            child.awaitExit();
            List<String> stored = userTexts(redis.sessions(), id);
            System.out.printf("two JVMs on Redis: %d turns sent, %d stored%n", 2 * turns, stored.size() - 1);
            assertThat(stored).hasSize(2 * turns + 1);
            List<String> expected = new ArrayList<>(List.of("hello"));
            for (int i = 0; i < turns; i++) {
                expected.add("parent " + i);
                expected.add("child " + i);
            }
            assertThat(stored).containsExactlyInAnyOrderElementsOf(expected);
            assertThat(child.lines.stream().filter(l -> l.startsWith("ACK ")).count()).isEqualTo(turns);
        }
    }

    @Test
    void aJvmKilledWhileHoldingASessionLetsItGoWhenItsLeaseExpiresAndNoAcknowledgedTurnIsLost() throws Exception {
        String prefix = SharedRedis.freshName() + ":";
        try (RedisBackends redis = RedisBackends.builder(SharedRedis.server().url()).keyPrefix(prefix)
                        .sessionLease(Duration.ofSeconds(1)).build();
                Engine engine = SessionWorkerMain.engine(redis).build()) {
            try (Session s = engine.newSession("held-1")) {
                s.send("before");
            }
            ChildJvm child = ChildJvm.launch(SessionWorkerMain.class, "hold", SharedRedis.server().url(), prefix, "1000", "held-1", "100000", "dead ");
            child.awaitReady();
            child.go();
            child.awaitLines(l -> l.startsWith("ACK "), 20);
            child.kill();
            List<String> acknowledged = child.lines.stream().filter(l -> l.startsWith("ACK "))
                    .map(l -> l.substring(4)).toList();

            long start = System.nanoTime();
            try (Session s = engine.resume("held-1")) {
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                System.out.printf("a killed JVM's session came free after %d ms (lease 1000 ms), %d turns acknowledged%n",
                        took.toMillis(), acknowledged.size());
                if (s.paused()) {
                    // The kill cut a turn short: it goes on from its journal before a new message.
                    assertThat(s.pending()).singleElement()
                            .satisfies(p -> assertThat(p.kind()).isEqualTo(PendingCall.Kind.INTERRUPTED));
                    assertThat(s.proceed().text()).startsWith("re: dead ");
                }
                List<String> stored = s.chat().messages().stream().filter(m -> m.role() == Role.USER)
                        .map(Message::text).toList();
                assertThat(stored.getFirst()).isEqualTo("before");
                assertThat(stored).containsSubsequence(acknowledged);
                assertThat(stored.size() - 1).as("at most the one turn that ran as it was killed beyond those acknowledged")
                        .isBetween(acknowledged.size(), acknowledged.size() + 1);
                assertThat(s.send("after").text()).isEqualTo("re: after");
            }
            List<String> stored = userTexts(redis.sessions(), "held-1");
            assertThat(stored.getLast()).isEqualTo("after");
            assertThat(stored).containsSubsequence(acknowledged);
        }
    }
}
