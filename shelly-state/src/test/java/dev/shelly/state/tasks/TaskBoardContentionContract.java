package dev.shelly.state.tasks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.time.Clock;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * Many virtual threads creating, claiming, finishing and watching tasks on one board at once, on
 * any {@link TaskBackend}: every backend runs it. Published in the test jar.
 */
public abstract class TaskBoardContentionContract {
    /**
     * A new, empty backend for one test; each call must return a backend that shares nothing
     * with the others.
     *
     * @return the backend
     */
    protected abstract TaskBackend newBackend();

    private static final int THREADS = 64;
    private static final long GUARD_SECONDS = 60;

    private final TaskBoard board = new TaskBoard(newBackend(), new TickingClock(), TickingClock.LEASE);

    @RepeatedTest(20)
    void exactlyOneOfManyConcurrentClaimersWins() throws Exception {
        Task task = board.create("contested", "");
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Object>> outcomes = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < THREADS; i++) {
                String agent = "worker-" + i;
                outcomes.add(pool.submit(() -> {
                    start.await();
                    try {
                        return board.claim(task.id(), agent);
                    } catch (TaskStateException e) {
                        return e;
                    }
                }));
            }
            start.countDown();
            List<Task> won = new ArrayList<>();
            List<TaskStateException> lost = new ArrayList<>();
            for (Future<Object> f : outcomes) {
                Object o = f.get(GUARD_SECONDS, TimeUnit.SECONDS);
                if (o instanceof Task t) {
                    won.add(t);
                } else {
                    lost.add((TaskStateException) o);
                }
            }
            assertThat(won).hasSize(1);
            String winner = won.getFirst().assignee();
            assertThat(board.get(task.id()).orElseThrow()).isEqualTo(won.getFirst());
            assertThat(lost).hasSize(THREADS - 1).allSatisfy(e -> assertThat(e).hasMessage("cannot claim task task-1: "
                    + "it is in_progress, claimed by '" + winner + "'; only pending tasks can be claimed"));
        }
    }

    @RepeatedTest(20)
    void workersDrainingTheBoardGetEveryTaskExactlyOnce() throws Exception {
        int tasks = 200;
        for (int i = 0; i < tasks; i++) {
            board.create("t" + i, "");
        }
        Map<String, String> claimedBy = new ConcurrentHashMap<>();
        CountDownLatch start = new CountDownLatch(1);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Integer>> workers = new ArrayList<>();
            for (int w = 0; w < 16; w++) {
                String agent = "worker-" + w;
                workers.add(pool.submit(() -> {
                    start.await();
                    int n = 0;
                    for (Optional<Task> t = board.claimNext(agent); t.isPresent(); t = board.claimNext(agent)) {
                        assertThat(claimedBy.putIfAbsent(t.get().id(), agent)).as("claimed twice: " + t.get().id()).isNull();
                        n++;
                    }
                    return n;
                }));
            }
            start.countDown();
            int total = 0;
            for (Future<Integer> f : workers) {
                total += f.get(GUARD_SECONDS, TimeUnit.SECONDS);
            }
            assertThat(total).isEqualTo(tasks);
        }
        assertThat(board.list(TaskStatus.PENDING, null)).isEmpty();
        for (Task t : board.list()) {
            assertThat(t.assignee()).as(t.id()).isEqualTo(claimedBy.get(t.id()));
        }
    }

    @RepeatedTest(20)
    void ofConflictingTransitionsExactlyOneLands() throws Exception {
        board.create("t", "");
        board.claim("task-1", "w");
        TaskStatus[] targets = {TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.CANCELLED, TaskStatus.PENDING};
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Optional<Task>>> outcomes = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < THREADS; i++) {
                TaskStatus to = targets[i % targets.length];
                String note = "by " + i;
                outcomes.add(pool.submit(() -> {
                    start.await();
                    try {
                        return Optional.of(board.update("task-1", to, note));
                    } catch (TaskStateException e) {
                        return Optional.empty();
                    }
                }));
            }
            start.countDown();
            List<Task> landed = new ArrayList<>();
            for (Future<Optional<Task>> f : outcomes) {
                f.get(GUARD_SECONDS, TimeUnit.SECONDS).ifPresent(landed::add);
            }
            assertThat(landed).hasSizeBetween(1, 2);
            // From in_progress: one move to a final status wins outright, or a give-back (pending) lands first and
            // then at most one cancel can follow it, since pending -> cancelled is the only move out of pending here.
            Task last = board.get("task-1").orElseThrow();
            if (landed.size() == 1) {
                assertThat(last.status()).isIn(TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.CANCELLED);
            } else {
                assertThat(landed).extracting(Task::status)
                        .containsExactlyInAnyOrder(TaskStatus.PENDING, TaskStatus.CANCELLED);
                assertThat(last.status()).isEqualTo(TaskStatus.CANCELLED);
            }
            assertThat(landed).contains(last);
        }
    }

    @RepeatedTest(20)
    void concurrentCreatesGetDistinctSequentialIds() throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Task>> created = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                int n = i;
                created.add(pool.submit(() -> {
                    start.await();
                    return board.create("t" + n, "");
                }));
            }
            start.countDown();
            Set<String> ids = new HashSet<>();
            for (Future<Task> f : created) {
                ids.add(f.get(GUARD_SECONDS, TimeUnit.SECONDS).id());
            }
            Set<String> expected = new HashSet<>();
            for (int i = 1; i <= THREADS; i++) {
                expected.add("task-" + i);
            }
            assertThat(ids).isEqualTo(expected);
        }
        assertThat(board.list()).hasSize(THREADS);
    }

    @RepeatedTest(20)
    void watchersSeeEveryTaskFinishWhileAgentsWorkThroughTheTools() throws Exception {
        int tasks = 32;
        for (int i = 0; i < tasks; i++) {
            board.create("t" + i, "do " + i, "lead");
        }
        ToolBox tools = board.tools();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Optional<Task>>> watchers = new ArrayList<>();
            for (int i = 1; i <= tasks; i++) {
                String id = "task-" + i;
                watchers.add(pool.submit(() -> board.awaitFinal(id, Duration.ofSeconds(GUARD_SECONDS))));
            }
            List<Future<Integer>> agents = new ArrayList<>();
            for (int a = 0; a < 8; a++) {
                ToolContext ctx = new ToolContext("agent-" + a, "lead", 1);
                agents.add(pool.submit(() -> {
                    int done = 0;
                    while (true) {
                        ToolResult claimed = tools.call(new ToolCall("c", "tasks_claim", "{}"), ctx);
                        if (claimed.isError()) {
                            assertThat(claimed.text()).startsWith("no pending task to claim; ");
                            return done;
                        }
                        String id = claimed.text().substring(7, claimed.text().indexOf('"', 7));
                        ToolResult finished = tools.call(new ToolCall("u", "tasks_update",
                                "{\"id\":\"" + id + "\",\"status\":\"completed\",\"result\":\"" + ctx.agent() + "\"}"), ctx);
                        assertThat(finished.isError()).as(finished.text()).isFalse();
                        done++;
                    }
                }));
            }
            int done = 0;
            for (Future<Integer> f : agents) {
                done += f.get(GUARD_SECONDS, TimeUnit.SECONDS);
            }
            assertThat(done).isEqualTo(tasks);
            for (Future<Optional<Task>> w : watchers) {
                Task t = w.get(GUARD_SECONDS, TimeUnit.SECONDS).orElseThrow();
                assertThat(t.status()).isEqualTo(TaskStatus.COMPLETED);
                assertThat(t.result()).isEqualTo(t.assignee());
            }
        }
    }

    @Test
    void heartbeatsKeepLiveClaimsWhileOthersHuntForLapsedOnesAndDeadClaimsComeBackOnce() throws Exception {
        TaskBackend backend = newBackend();
        // Renewed every 200 ms: a live claim is lost only if its heartbeat stalls for 600 ms.
        Duration lease = Duration.ofMillis(600);
        TaskBoard setup = new TaskBoard(backend, Clock.systemUTC(), lease, false);
        for (int i = 0; i < 12; i++) {
            setup.create("t" + i, "");
        }
        // A worker that dies holding three tasks: its board never renews.
        TaskBoard dead = new TaskBoard(backend, Clock.systemUTC(), lease, false);
        Set<String> lost = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            lost.add(dead.claimNext("dead").orElseThrow().id());
        }
        Map<String, List<String>> completedBy = new ConcurrentHashMap<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> workers = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                String agent = "live-" + w;
                TaskBoard own = new TaskBoard(backend, Clock.systemUTC(), lease);
                workers.add(pool.submit(() -> {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
                    while (System.nanoTime() < deadline) {
                        Optional<Task> next = own.claimNext(agent);
                        if (next.isEmpty()) {
                            if (backend.withStatus(TaskStatus.PENDING, 1).isEmpty()
                                    && backend.withStatus(TaskStatus.IN_PROGRESS, 1).isEmpty()) {
                                return null;
                            }
                            Thread.sleep(20);
                            continue;
                        }
                        Thread.sleep(lease.toMillis() + 100); // work longer than a lease: the heartbeat keeps it
                        own.update(next.get().id(), TaskStatus.COMPLETED, agent, agent);
                        completedBy.computeIfAbsent(next.get().id(), k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                                .add(agent);
                    }
                    throw new AssertionError(agent + " did not finish within " + GUARD_SECONDS + " s");
                }));
            }
            for (Future<?> f : workers) {
                f.get(GUARD_SECONDS * 2, TimeUnit.SECONDS);
            }
        }
        assertThat(completedBy).hasSize(12);
        assertThat(completedBy.values()).as("each task completed once, never lost by a live worker")
                .allSatisfy(by -> assertThat(by).hasSize(1));
        assertThat(lost).allSatisfy(id -> assertThat(backend.get(id).orElseThrow().result()).startsWith("live-"));
    }
}
