package dev.shelly.state.tasks;

import static dev.shelly.state.tasks.TaskStatus.CANCELLED;
import static dev.shelly.state.tasks.TaskStatus.COMPLETED;
import static dev.shelly.state.tasks.TaskStatus.FAILED;
import static dev.shelly.state.tasks.TaskStatus.IN_PROGRESS;
import static dev.shelly.state.tasks.TaskStatus.PENDING;
import static dev.shelly.state.tasks.TickingClock.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.state.Waiting;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.EnumSet;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** What a {@link TaskBoard} promises, on any {@link TaskBackend}: every backend runs it. Published in the test jar. */
public abstract class TaskBoardContract {
    /**
     * A new, empty backend for one test; each call must return a backend that shares nothing
     * with the others.
     *
     * @return the backend
     */
    protected abstract TaskBackend newBackend();

    private final TaskBoard board = new TaskBoard(newBackend(), new TickingClock(), TickingClock.LEASE);

    @Test
    void createsPendingTasksWithSequentialIdsAndTimestamps() {
        Task first = board.create("Research X", "Find three sources", "lead");
        Task second = board.create("Write", null);
        assertThat(first).isEqualTo(new Task("task-1", "Research X", "Find three sources", PENDING, null, "lead", null,
                at(0), at(0)));
        assertThat(second).isEqualTo(new Task("task-2", "Write", "", PENDING, null, null, null, at(1), at(1)));
        assertThat(board.get("task-1")).contains(first);
        assertThat(board.get("task-3")).isEmpty();
        assertThat(board.list()).containsExactly(first, second);
    }

    @Test
    void timestampsAreTruncatedToMilliseconds() {
        Clock fine = Clock.fixed(Instant.parse("2026-03-04T05:06:07.123456789Z"), ZoneOffset.UTC);
        Task t = new TaskBoard(newBackend(), fine).create("t", "");
        assertThat(t.createdAt()).isEqualTo(Instant.parse("2026-03-04T05:06:07.123Z"));
    }

    @Test
    void claimAssignsTheAgentAndUpdateRecordsTheResult() {
        board.create("Research X", "", "lead");
        Task claimed = board.claim("task-1", "worker-1");
        assertThat(claimed.claim()).as("the claim's token").isNotBlank();
        assertThat(claimed).isEqualTo(new Task("task-1", "Research X", "", IN_PROGRESS, "worker-1", "lead", null,
                at(0), at(1), at(1).plus(TickingClock.LEASE), claimed.claim()));
        Task done = board.update("task-1", COMPLETED, "three sources: a, b, c", "worker-1");
        assertThat(done).isEqualTo(new Task("task-1", "Research X", "", COMPLETED, "worker-1", "lead",
                "three sources: a, b, c", at(0), at(2)));
        assertThat(board.get("task-1")).contains(done);
    }

    @Test
    void givingATaskBackClearsItsAssigneeAndKeepsItsNote() {
        board.create("t", "");
        board.claim("task-1", "worker-1");
        Task back = board.update("task-1", PENDING, "source site is down");
        assertThat(back.status()).isEqualTo(PENDING);
        assertThat(back.assignee()).isNull();
        assertThat(back.result()).isEqualTo("source site is down");
        assertThat(board.claim("task-1", "worker-2").assignee()).isEqualTo("worker-2");
        Task failed = board.update("task-1", FAILED, null, "worker-2");
        assertThat(failed.result()).isEqualTo("source site is down");
    }

    @Test
    void listFiltersByStatusAndAssignee() {
        Task a = board.create("a", "");
        board.create("b", "");
        board.create("c", "");
        board.claim("task-2", "w1");
        board.claim("task-3", "w2");
        board.update("task-3", COMPLETED, "done");
        assertThat(board.list(PENDING, null)).containsExactly(a);
        assertThat(board.list(null, "w1")).extracting(Task::id).containsExactly("task-2");
        assertThat(board.list(COMPLETED, "w2")).extracting(Task::id).containsExactly("task-3");
        assertThat(board.list(COMPLETED, "w1")).isEmpty();
        assertThat(board.list(null, null)).hasSize(3);
    }

    @Test
    void theTransitionTableIsExact() {
        assertThat(PENDING.successors()).isEqualTo(EnumSet.of(IN_PROGRESS, CANCELLED));
        assertThat(IN_PROGRESS.successors()).isEqualTo(EnumSet.of(COMPLETED, FAILED, CANCELLED, PENDING));
        for (TaskStatus s : EnumSet.of(COMPLETED, FAILED, CANCELLED)) {
            assertThat(s.successors()).as(s.wireName()).isEmpty();
            assertThat(s.isFinal()).isTrue();
        }
        assertThat(PENDING.isFinal()).isFalse();
        assertThat(IN_PROGRESS.isFinal()).isFalse();
        assertThat(TaskStatus.fromWireName("in_progress")).isEqualTo(IN_PROGRESS);
        assertThatThrownBy(() -> TaskStatus.fromWireName("done"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown task status 'done'; use one of: pending, in_progress, completed, failed, cancelled");
    }

    @Test
    void everyIllegalMoveIsRefusedWithAMessageNamingTheTaskAndBothStatuses() {
        board.create("t", "");
        assertRefused(() -> board.update("task-1", COMPLETED, null), PENDING, COMPLETED,
                "cannot move task task-1 from pending to completed; from pending a task can move to "
                        + "in_progress (by claiming it), cancelled");
        assertRefused(() -> board.update("task-1", FAILED, null), PENDING, FAILED,
                "cannot move task task-1 from pending to failed; from pending a task can move to "
                        + "in_progress (by claiming it), cancelled");
        assertRefused(() -> board.update("task-1", IN_PROGRESS, null), PENDING, IN_PROGRESS,
                "cannot move task task-1 from pending to in_progress by an update: claim it, so that it gets an assignee");
        assertRefused(() -> board.update("task-1", PENDING, null), PENDING, PENDING, "task task-1 is already pending");

        board.claim("task-1", "w1");
        assertRefused(() -> board.update("task-1", IN_PROGRESS, null), IN_PROGRESS, IN_PROGRESS,
                "task task-1 is already in_progress");
        assertRefused(() -> board.update("task-1", COMPLETED, null, "w2"), IN_PROGRESS, COMPLETED,
                "agent 'w2' cannot mark task task-1 completed: it is assigned to 'w1'");
        assertRefused(() -> board.update("task-1", FAILED, null, "w2"), IN_PROGRESS, FAILED,
                "agent 'w2' cannot mark task task-1 failed: it is assigned to 'w1'");

        board.update("task-1", COMPLETED, "ok", "w1");
        for (TaskStatus to : TaskStatus.values()) {
            if (to != COMPLETED) {
                assertRefused(() -> board.update("task-1", to, null), COMPLETED, to,
                        "cannot move task task-1 from completed to " + to.wireName() + ": completed is final");
            }
        }
        assertRefused(() -> board.claim("task-1", "w3"), COMPLETED, IN_PROGRESS,
                "cannot claim task task-1: it is completed, claimed by 'w1'; only pending tasks can be claimed");
        assertThat(board.get("task-1").orElseThrow().result()).isEqualTo("ok");
    }

    @Test
    void anyoneMayCancelOrGiveBackAClaimedTask() {
        board.create("a", "");
        board.create("b", "");
        board.claim("task-1", "w1");
        board.claim("task-2", "w1");
        assertThat(board.update("task-1", CANCELLED, "not needed", "lead").status()).isEqualTo(CANCELLED);
        assertThat(board.update("task-2", PENDING, null, "lead").assignee()).isNull();
        board.create("c", "");
        assertThat(board.update("task-3", CANCELLED, null, "lead").assignee()).isNull();
    }

    @Test
    void aLostClaimNamesTheWinner() {
        board.create("t", "");
        board.claim("task-1", "w1");
        assertRefused(() -> board.claim("task-1", "w2"), IN_PROGRESS, IN_PROGRESS,
                "cannot claim task task-1: it is in_progress, claimed by 'w1'; only pending tasks can be claimed");
        assertRefused(() -> board.claim("task-1", "w1"), IN_PROGRESS, IN_PROGRESS,
                "cannot claim task task-1: it is in_progress, claimed by 'w1'; only pending tasks can be claimed");
    }

    @Test
    void claimNextTakesTheOldestPendingTask() {
        board.create("a", "");
        board.create("b", "");
        board.create("c", "");
        board.claim("task-1", "w0");
        assertThat(board.claimNext("w1").map(Task::id)).contains("task-2");
        assertThat(board.claimNext("w2").map(Task::id)).contains("task-3");
        assertThat(board.claimNext("w3")).isEmpty();
    }

    @Test
    void badArgumentsNameWhatIsWrong() {
        assertThatThrownBy(() -> board.claim("task-9", "w"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("no task 'task-9' on the board");
        assertThatThrownBy(() -> board.update("task-9", COMPLETED, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("no task 'task-9' on the board");
        assertThatThrownBy(() -> board.create(" ", ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("a task's title must not be null or blank");
        assertThatThrownBy(() -> board.claim("task-1", null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("the claiming agent must not be null or blank");
        assertThatThrownBy(() -> board.watch("task-9", PENDING, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("no task 'task-9' on the board");
        assertThatThrownBy(() -> new Task("task-1", "t", "", IN_PROGRESS, null, null, null, at(0), at(0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Task.assignee of task-1 must be set while it is in_progress");
        assertThatThrownBy(() -> new Task("task-1", "t", "", PENDING, "w", null, null, at(0), at(0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Task.assignee of task-1 must be null while it is pending, was 'w'");
    }

    @Test
    void watchReturnsAtOnceWhenTheStatusDiffersAndEmptyOnTimeout() throws InterruptedException {
        board.create("t", "");
        assertThat(board.watch("task-1", IN_PROGRESS, Duration.ofDays(1)).map(Task::status)).contains(PENDING);
        assertThat(board.watch("task-1", PENDING, Duration.ZERO)).isEmpty();
        assertThat(board.watch("task-1", PENDING, Duration.ofMillis(50))).isEmpty();
        assertThat(board.awaitFinal("task-1", Duration.ofMillis(20))).isEmpty();
    }

    @Test
    void watchWakesOnTheStatusChangeNotOnOtherWrites() throws Exception {
        board.create("watched", "");
        Waiting.Blocked<Optional<Task>> watcher = Waiting.start(() -> board.awaitFinal("task-1", Duration.ofMinutes(1)));
        board.create("other", "");
        board.claim("task-1", "w1");
        assertThatThrownBy(() -> watcher.result().get(50, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        Task finished = board.update("task-1", COMPLETED, "result");
        assertThat(watcher.result().get(30, TimeUnit.SECONDS)).contains(finished);
    }

    @Test
    void watchAnswersAnInterruptPromptly() throws Exception {
        board.create("t", "");
        Waiting.Blocked<Optional<Task>> watcher = Waiting.start(() -> board.watch("task-1", PENDING, Duration.ofDays(1)));
        watcher.thread().interrupt();
        assertThatThrownBy(() -> watcher.result().get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(InterruptedException.class);
    }

    @Test
    void releaseClaimsOfGivesBackOnlyThatAgentsUnfinishedClaims() {
        for (int i = 0; i < 5; i++) {
            board.create("t" + i, "");
        }
        board.claim("task-1", "gone");
        board.claim("task-2", "alive");
        board.claim("task-3", "gone");
        board.claim("task-4", "gone");
        board.update("task-4", COMPLETED, "done", "gone");
        assertThat(board.list(IN_PROGRESS, "gone")).extracting(Task::id)
                .as("until released, the claims stay visible as the agent's")
                .containsExactly("task-1", "task-3");
        assertThat(board.releaseClaimsOf("gone")).extracting(Task::id, Task::status, Task::assignee)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("task-1", PENDING, null),
                        org.assertj.core.groups.Tuple.tuple("task-3", PENDING, null));
        assertThat(board.get("task-2").orElseThrow().assignee()).isEqualTo("alive");
        assertThat(board.get("task-4").orElseThrow().status()).isEqualTo(COMPLETED);
        assertThat(board.releaseClaimsOf("gone")).isEmpty();
        assertRefused(() -> board.update("task-1", COMPLETED, "late", "gone"), PENDING, COMPLETED,
                "cannot move task task-1 from pending to completed; from pending a task can move to "
                        + "in_progress (by claiming it), cancelled");
        assertThat(board.claimNext("other").map(Task::id)).contains("task-1");
    }

    @Test
    void withStatusAnswersTheFirstTasksOfAStatusInCreationOrder() {
        TaskBackend backend = newBackend();
        TaskBoard own = new TaskBoard(backend, new TickingClock(), TickingClock.LEASE);
        for (int i = 0; i < 40; i++) {
            own.create("t" + i, "");
        }
        for (int i = 1; i <= 35; i += 2) {
            own.claim("task-" + i, "w");
        }
        assertThat(backend.withStatus(PENDING, 3)).extracting(Task::id).containsExactly("task-2", "task-4", "task-6");
        assertThat(backend.withStatus(IN_PROGRESS, 100)).hasSize(18).first().extracting(Task::id).isEqualTo("task-1");
        assertThat(backend.withStatus(COMPLETED, 1)).isEmpty();
        for (int i = 0; i < 22; i++) {
            assertThat(own.claimNext("x")).as("claim %d", i).isPresent();
        }
        assertThat(own.claimNext("x")).isEmpty();
        assertThat(backend.withStatus(PENDING, 5)).isEmpty();
    }

    @Test
    void aClaimWhoseHolderStoppedRenewingGoesBackAfterItsLeaseAndItsLateCompletionIsRefused() {
        TaskBackend backend = newBackend();
        ManualClock clock = new ManualClock();
        TaskBoard dead = new TaskBoard(backend, clock, Duration.ofSeconds(30), false);
        TaskBoard live = new TaskBoard(backend, clock, Duration.ofSeconds(30), false);
        dead.create("a", "");
        dead.create("b", "");
        Task held = dead.claim("task-1", "gone");
        assertThat(held.leaseUntil()).isEqualTo(ManualClock.START.plusSeconds(30));
        dead.claim("task-2", "gone");
        dead.update("task-2", COMPLETED, "done", "gone");

        clock.advance(Duration.ofSeconds(29));
        assertThat(live.claimNext("alive")).as("the lease still runs").isEmpty();
        assertThat(live.releaseExpiredClaims()).isEmpty();
        clock.advance(Duration.ofSeconds(2));
        assertThat(live.releaseExpiredClaims()).extracting(Task::id, Task::status, Task::assignee, Task::leaseUntil)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("task-1", PENDING, null, null));
        assertRefused(() -> dead.update("task-1", COMPLETED, "late", "gone"), PENDING, COMPLETED,
                "cannot move task task-1 from pending to completed; from pending a task can move to "
                        + "in_progress (by claiming it), cancelled");
        Task again = live.claimNext("alive").orElseThrow();
        assertThat(again.id()).isEqualTo("task-1");
        assertThat(again.leaseUntil()).isEqualTo(ManualClock.START.plusSeconds(61));
        assertRefused(() -> dead.update("task-1", COMPLETED, "late", "gone"), IN_PROGRESS, COMPLETED,
                "agent 'gone' cannot mark task task-1 completed: it is assigned to 'alive'");
        assertThat(backend.get("task-2").orElseThrow().status()).as("a finished task has no lease to lapse")
                .isEqualTo(COMPLETED);
        assertThat(live.update("task-1", COMPLETED, "ok", "alive").leaseUntil()).isNull();
    }

    @Test
    void aHolderWhoseClaimLapsedCannotRenewNorCompleteTheNewClaimOfAnAgentOfTheSameName() {
        TaskBackend backend = newBackend();
        ManualClock clock = new ManualClock();
        TaskBoard cutOff = new TaskBoard(backend, clock, Duration.ofSeconds(30), false);
        TaskBoard other = new TaskBoard(backend, clock, Duration.ofSeconds(30), false);
        cutOff.create("a", "");
        Task lost = cutOff.claim("task-1", "worker");
        clock.advance(Duration.ofSeconds(31));
        Task again = other.claimNext("worker").orElseThrow();
        assertThat(again.id()).isEqualTo("task-1");
        assertThat(again.claim()).as("every claim has its own token").isNotBlank().isNotEqualTo(lost.claim());

        assertThat(cutOff.renewHeld("task-1", lost.claim())).as("the old holder's heartbeat").isNull();
        assertRefused(() -> cutOff.renew("task-1", "worker"), IN_PROGRESS, IN_PROGRESS,
                "cannot renew the claim of task task-1 by 'worker': its claim through this board lapsed, and the "
                        + "task was claimed again by 'worker'");
        assertRefused(() -> cutOff.update("task-1", COMPLETED, "late", "worker"), IN_PROGRESS, COMPLETED,
                "agent 'worker' cannot mark task task-1 completed: its claim through this board lapsed, and the task "
                        + "was claimed again by 'worker'");
        assertRefused(() -> cutOff.update("task-1", FAILED, "late", "worker"), IN_PROGRESS, FAILED,
                "agent 'worker' cannot mark task task-1 failed: its claim through this board lapsed, and the task "
                        + "was claimed again by 'worker'");
        assertThat(backend.get("task-1")).as("the new claim untouched").contains(again);

        clock.advance(Duration.ofSeconds(10));
        assertThat(other.renewHeld("task-1", again.claim())).isEqualTo(clock.instant().plusSeconds(30));
        assertThat(other.renew("task-1", "worker").leaseUntil()).isEqualTo(clock.instant().plusSeconds(30));
        assertThat(other.update("task-1", COMPLETED, "ok", "worker").result()).isEqualTo("ok");

        cutOff.create("b", "");
        Task given = cutOff.claim("task-2", "worker");
        cutOff.releaseClaimsOf("worker");
        Task taken = other.claim("task-2", "worker");
        assertThat(taken.claim()).isNotEqualTo(given.claim());
        assertRefusedWith(() -> cutOff.update("task-2", COMPLETED, "late", "worker"),
                "agent 'worker' cannot mark task task-2 completed: its claim through this board lapsed, and the task "
                        + "was claimed again by 'worker'");
        assertThat(other.update("task-2", COMPLETED, "ok", "worker").status()).isEqualTo(COMPLETED);
    }

    @Test
    void expiredClaimsChecksItsArgumentsAlike() {
        TaskBackend backend = newBackend();
        assertThatThrownBy(() -> backend.expiredClaims(null, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("TaskBackend.expiredClaims needs a time and a limit of at least 1, got null and 1");
        assertThatThrownBy(() -> backend.expiredClaims(ManualClock.START, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("TaskBackend.expiredClaims needs a time and a limit of at least 1, got "
                        + "2026-01-01T00:00:00Z and 0");
    }

    @Test
    void aWorkerLookingForWorkTakesALapsedClaimByItself() {
        TaskBackend backend = newBackend();
        ManualClock clock = new ManualClock();
        TaskBoard dead = new TaskBoard(backend, clock, Duration.ofSeconds(30), false);
        TaskBoard live = new TaskBoard(backend, clock, Duration.ofSeconds(30), false);
        dead.create("a", "");
        dead.claimNext("gone");
        clock.advance(Duration.ofSeconds(31));
        assertThat(live.claimNext("alive")).map(Task::assignee).contains("alive");
        assertThat(dead.claimNext("gone")).isEmpty();
    }

    @Test
    void renewingAClaimKeepsItAndOnlyItsHolderMayRenew() {
        TaskBackend backend = newBackend();
        ManualClock clock = new ManualClock();
        TaskBoard holder = new TaskBoard(backend, clock, Duration.ofSeconds(30), false);
        TaskBoard other = new TaskBoard(backend, clock, Duration.ofSeconds(30), false);
        holder.create("long work", "");
        holder.claim("task-1", "w1");
        clock.advance(Duration.ofSeconds(20));
        Task renewed = holder.renew("task-1", "w1");
        assertThat(renewed.leaseUntil()).isEqualTo(ManualClock.START.plusSeconds(50));
        assertThat(renewed.updatedAt()).as("renewing is no change of the task").isEqualTo(ManualClock.START);
        clock.advance(Duration.ofSeconds(20));
        assertThat(other.claimNext("w2")).isEmpty();
        assertRefused(() -> other.renew("task-1", "w2"), IN_PROGRESS, IN_PROGRESS,
                "cannot renew the claim of task task-1 by 'w2': it is in_progress, claimed by 'w1'");
        holder.update("task-1", COMPLETED, "ok", "w1");
        assertRefused(() -> holder.renew("task-1", "w1"), COMPLETED, IN_PROGRESS,
                "cannot renew the claim of task task-1 by 'w1': it is completed, claimed by 'w1'");
    }

    @Test
    void theBoardRenewsItsClaimsWhileTheyLastAndStopsWhenTheyEnd() throws Exception {
        TaskBackend backend = newBackend();
        // renewed every third of the lease, so a loaded machine may stall a beat by up to 600 ms
        Duration lease = Duration.ofMillis(900);
        TaskBoard holder = new TaskBoard(backend, Clock.systemUTC(), lease);
        TaskBoard other = new TaskBoard(backend, Clock.systemUTC(), lease, false);
        holder.create("a", "");
        holder.create("b", "");
        holder.claim("task-1", "w1");
        holder.claimNext("w1");
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2000);
        while (System.nanoTime() < end) {
            assertThat(other.claimNext("w2")).as("renewed claims never lapse").isEmpty();
            Thread.sleep(20);
        }
        assertThat(backend.get("task-1").orElseThrow().leaseUntil()).isAfter(Instant.now());
        holder.update("task-1", COMPLETED, "ok", "w1");
        holder.update("task-2", PENDING, null);
        assertThat(holder.renewing()).isZero();
        assertThat(other.claimNext("w2")).map(Task::id).contains("task-2");
    }

    private static void assertRefusedWith(Runnable call, String message) {
        assertThatThrownBy(call::run).isInstanceOf(TaskStateException.class).hasMessage(message);
    }

    private static void assertRefused(Runnable call, TaskStatus current, TaskStatus requested, String message) {
        assertThatThrownBy(call::run)
                .isInstanceOfSatisfying(TaskStateException.class, e -> {
                    assertThat(e.taskId()).isEqualTo("task-1");
                    assertThat(e.current()).isEqualTo(current);
                    assertThat(e.requested()).isEqualTo(requested);
                })
                .hasMessage(message);
    }
}
