package dev.shelly.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.state.tasks.Task;
import dev.shelly.state.tasks.TaskBoard;
import dev.shelly.state.tasks.TaskStatus;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Several JVMs against one redis-server: they drain one board, one of them killed mid-run; and
 * they share one rate limit.
 */
class CrossProcessTest {
    private static final int TASKS = 1_000;

    @Test
    void jvmsDrainASharedBoardEachTaskClaimedOnceAndAKilledJvmsClaimsAreReleasedAndRedone() throws Exception {
        String name = SharedRedis.freshName();
        TaskBoard board = new TaskBoard(SharedRedis.backends().taskBackend(name), Clock.systemUTC());
        for (int i = 0; i < TASKS; i++) {
            board.create("work " + i, "");
        }
        ChildJvm a = ChildJvm.launch(BoardWorkerMain.class, "work", SharedRedis.server().url(), "test:", name, "A", "4", "2");
        ChildJvm b = ChildJvm.launch(BoardWorkerMain.class, "work", SharedRedis.server().url(), "test:", name, "B", "4", "0");
        a.awaitReady();
        b.awaitReady();
        a.go();
        b.go();
        a.awaitLines(l -> l.startsWith("CLAIM "), 100);
        a.kill();
        b.awaitExit();

        List<Task> all = board.list();
        assertThat(all).hasSize(TASKS);
        assertThat(board.list(TaskStatus.PENDING, null)).as("nothing lost: every task claimed").isEmpty();
        List<Task> held = board.list(TaskStatus.IN_PROGRESS, null);
        assertThat(held).as("the killed JVM's unfinished claims stay visible as its own")
                .isNotEmpty().allSatisfy(t -> assertThat(t.assignee()).startsWith("A-"));

        List<Task> released = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            released.addAll(board.releaseClaimsOf("A-" + t));
        }
        assertThat(released).extracting(Task::id).containsExactlyInAnyOrderElementsOf(held.stream().map(Task::id).toList());
        // The recovery policy: whoever notices the dead JVM releases its agents' claims; here the
        // test's own JVM then drains them.
        List<String> redone = new ArrayList<>();
        for (var next = board.claimNext("C-0"); next.isPresent(); next = board.claimNext("C-0")) {
            redone.add(next.get().id());
            board.update(next.get().id(), TaskStatus.COMPLETED, "C-0", "C-0");
        }
        assertThat(redone).containsExactlyInAnyOrderElementsOf(released.stream().map(Task::id).toList());

        assertThat(board.list(TaskStatus.COMPLETED, null)).hasSize(TASKS);
        Map<String, List<String>> claims = new HashMap<>();
        redone.forEach(id -> claims.computeIfAbsent(id, k -> new ArrayList<>()).add("C-0"));
        for (ChildJvm child : List.of(a, b)) {
            for (String line : child.lines) {
                if (line.startsWith("CLAIM ")) {
                    String[] p = line.split(" ");
                    claims.computeIfAbsent(p[1], k -> new ArrayList<>()).add(p[2]);
                }
            }
        }
        var releasedIds = released.stream().map(Task::id).collect(Collectors.toSet());
        for (Task t : board.list()) {
            List<String> by = claims.getOrDefault(t.id(), List.of());
            List<String> outsideA = by.stream().filter(agent -> !agent.startsWith("A-")).toList();
            if (releasedIds.contains(t.id())) {
                assertThat(outsideA).as("released %s was claimed again exactly once", t.id()).hasSize(1);
                assertThat(t.result()).startsWith("C-");
            } else {
                assertThat(by).as("claims of %s", t.id()).hasSize(1);
                assertThat(t.result()).isEqualTo(by.getFirst());
            }
        }
        assertThat(claims.values().stream().flatMap(List::stream).filter(x -> x.startsWith("B-")).count())
                .as("both JVMs did work").isPositive();
    }

    /** Two worker JVMs with the same arguments, started together; the numbers after {@code prefix} in their output, sorted. */
    private static List<Long> fromTwoJvms(String prefix, String... args) throws Exception {
        ChildJvm one = ChildJvm.launch(BoardWorkerMain.class, args);
        ChildJvm two = ChildJvm.launch(BoardWorkerMain.class, args);
        one.awaitReady();
        two.awaitReady();
        one.go();
        two.go();
        one.awaitExit();
        two.awaitExit();
        List<Long> values = new ArrayList<>();
        for (ChildJvm child : List.of(one, two)) {
            child.lines.stream().filter(l -> l.startsWith(prefix))
                    .forEach(l -> values.add(Long.parseLong(l.substring(prefix.length()))));
        }
        return values.stream().sorted().toList();
    }

    @Test
    void twoJvmsSharingARateLimitStayUnderItTogether() throws Exception {
        List<Long> sorted = fromTwoJvms("SLOT ", "limit", SharedRedis.server().url(), "test:", SharedRedis.freshName(),
                "60000", "300");
        assertThat(sorted).hasSize(600);
        for (int i = 1; i < sorted.size(); i++) {
            assertThat(sorted.get(i) - sorted.get(i - 1)).as("gap before start %d", i).isGreaterThanOrEqualTo(1000);
        }
    }

    @Test
    void twoJvmsNeverStartMoreThanTheLimitInAnySlidingWindowEvenWhenRequestsStartLate() throws Exception {
        String name = SharedRedis.freshName();
        int limit = 20;
        long windowMillis = 1_000;
        // Each JVM: 4 threads of 15 requests, each started up to 40 ms after its slot.
        List<Long> sorted = fromTwoJvms("START ", "window", SharedRedis.server().url(), "test:", name,
                Integer.toString(limit), Long.toString(windowMillis), "4", "15", "40");
        assertThat(sorted).hasSize(120);
        // Every window that holds a start: the window opening at each start holds at most `limit` starts.
        long windowMicros = windowMillis * 1_000;
        for (int i = 0; i + limit < sorted.size(); i++) {
            assertThat(sorted.get(i + limit) - sorted.get(i)).as("start %d and start %d", i, i + limit)
                    .isGreaterThanOrEqualTo(windowMicros);
        }
        // And the limit is used, not starved: 120 starts at 20 a window take about 6 windows.
        assertThat(sorted.getLast() - sorted.getFirst()).isLessThan(8 * (windowMicros + RedisRateLimiter.GUARD_MILLIS * 1_000));
    }
}
