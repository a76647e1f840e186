package dev.shelly.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import dev.shelly.engine.session.SessionStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
            Child child = Child.launch("turns", SharedRedis.server().url(), prefix, "15000", id, String.valueOf(turns),
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
            Child child = Child.launch("hold", SharedRedis.server().url(), prefix, "1000", "held-1", "100000", "dead ");
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

    /** A JVM running {@link SessionWorkerMain} on the test class path. */
    private static final class Child {
        final Process process;
        final List<String> lines = new CopyOnWriteArrayList<>();
        final CountDownLatch ready = new CountDownLatch(1);
        final Thread reader;

        private Child(Process process) {
            this.process = process;
            this.reader = Thread.ofPlatform().start(() -> {
                try (BufferedReader in = new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        lines.add(line);
                        if (line.equals("READY")) {
                            ready.countDown();
                        }
                    }
                } catch (IOException e) {
                    // the process was killed
                }
            });
        }

        static Child launch(String... args) throws IOException {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                    SessionWorkerMain.class.getName()));
            command.addAll(List.of(args));
            return new Child(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
        }

        void awaitReady() throws InterruptedException {
            if (!ready.await(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("the child JVM did not get ready: " + lines);
            }
        }

        void go() throws IOException {
            OutputStream in = process.getOutputStream();
            in.write("go\n".getBytes(StandardCharsets.UTF_8));
            in.flush();
        }

        void awaitLines(java.util.function.Predicate<String> which, int count) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (lines.stream().filter(which).count() < count) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    process.destroyForcibly();
                    throw new AssertionError("the child printed " + lines.size() + " lines and "
                            + (process.isAlive() ? "is still running" : "exited"));
                }
                Thread.sleep(5);
            }
        }

        void kill() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            reader.join(TimeUnit.SECONDS.toMillis(30));
        }

        void awaitExit() throws InterruptedException {
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("the child JVM did not finish within 120 s: " + lines);
            }
            reader.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(process.exitValue()).as("exit code; output: %s", lines).isZero();
            assertThat(lines).contains("EXIT");
        }
    }
}
