package dev.shelly.state.tasks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.state.Watchable;
import dev.shelly.state.spi.WatchedCells;
import dev.shelly.testing.logs.LogCapture;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/** The heartbeat against a backend that stops answering: it says so once per outage, and its lapsed claims are let go. */
class LeaseKeeperTest {

    @Test
    void anOutageIsLoggedOnceAndAClaimWhoseLeaseEndedUnrenewedIsDroppedSoTheHeartbeatStops() throws Exception {
        Flaky backend = new Flaky();
        TaskBoard board = new TaskBoard(backend, Clock.systemUTC(), Duration.ofMillis(300));
        board.create("a", "");
        board.create("b", "");
        try (LogCapture logs = LogCapture.start()) {
            Task held = board.claim("task-1", "w");
            await(() -> backend.get("task-1").orElseThrow().leaseUntil().isAfter(held.leaseUntil()));

            backend.down = true;
            await(() -> board.renewing() == 0);
            assertThat(warnings(logs)).as("one line for the whole outage, though every beat failed")
                    .singleElement().asString()
                    .startsWith("WARN " + board + " cannot renew its claims (")
                    .endsWith(" failed): java.lang.IllegalStateException: backend down; a claim whose lease ends "
                            + "before a renewal gets through lapses");

            backend.down = false;
            Task next = board.claim("task-2", "w");
            await(() -> backend.get("task-2").orElseThrow().leaseUntil().isAfter(next.leaseUntil()));
            assertThat(logs.lines()).extracting(LogCapture.Line::level, LogCapture.Line::message)
                    .contains(org.assertj.core.groups.Tuple.tuple(Level.INFO, board + " renews its claims again"));
            backend.down = true;
            await(() -> board.renewing() == 0);
            assertThat(warnings(logs)).as("a second outage, a second line").hasSize(2);
        }
    }

    private static List<LogCapture.Line> warnings(LogCapture logs) {
        return logs.lines().stream().filter(l -> l.level() == Level.WARN && l.logger().equals(LeaseKeeper.class.getName()))
                .toList();
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited 20 s").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    /** Tasks in memory that the test can make unreachable, as a Redis outage or a closed connection does. */
    private static final class Flaky implements TaskBackend, WatchedCells {
        private final InMemoryTaskBackend tasks = new InMemoryTaskBackend();
        volatile boolean down;

        private void check() {
            if (down) {
                throw new IllegalStateException("backend down");
            }
        }

        @Override
        public long nextSequence() {
            check();
            return tasks.nextSequence();
        }

        @Override
        public boolean insert(Task task) {
            check();
            return tasks.insert(task);
        }

        @Override
        public Optional<Task> get(String id) {
            check();
            return tasks.get(id);
        }

        @Override
        public List<Task> all() {
            check();
            return tasks.all();
        }

        @Override
        public boolean replace(Task expected, Task next) {
            check();
            return tasks.replace(expected, next);
        }

        @Override
        public Watchable changes() {
            return tasks.changes();
        }

        @Override
        public String toString() {
            return "Flaky";
        }
    }
}
