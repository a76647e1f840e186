package dev.shelly.state.tasks;

import dev.shelly.chats.ShellyException;
import dev.shelly.tools.ToolBox;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

/**
 * A shared task board: agents create tasks, claim them, and report how they ended.
 *
 * <p>Every method is safe from many threads. A claim is atomic: of many agents claiming the same
 * pending task at once, exactly one wins and the others get a {@link TaskStateException} naming
 * the winner. Status changes follow the table of {@link TaskStatus}; an illegal one is refused
 * with a message naming the task and both statuses. A thread can {@linkplain #watch wait} for a
 * task's status to change without holding any lock. {@link #tools()} exposes the board to agents.
 *
 * <p>Ids are {@code task-1}, {@code task-2}, ... in creation order. Timestamps come from the
 * board's {@link Clock}, truncated to milliseconds. Tasks live in a {@link TaskBackend}, in
 * memory unless another backend is given.
 *
 * <p><b>Claims are leases.</b> A claim holds its task for the board's {@linkplain #lease() lease}
 * (default 30 s) from the claim, and the board renews it (a heartbeat every third of the lease)
 * for as long as the claim lasts: until the task is completed, failed, cancelled or given back.
 * A claim whose holder stopped renewing (its process died, or was cut off from the backend for
 * longer than the lease) lapses: the next board that looks for work ({@link #claimNext}) or
 * renews its own claims gives the task back to pending, and a live worker claims it again. A
 * late completion from the old holder is then refused, as after {@link #releaseClaimsOf}, even
 * when an agent of the same name (the same configuration in another process) claimed the task
 * again: each claim carries its own {@linkplain Task#claim() token}, and a board renews and
 * completes only the claims it made, by their tokens. Long
 * work can also {@linkplain #renew renew} its claim itself. The heartbeat renews for the process,
 * not for a thread: a worker thread that dies inside a live process keeps its claim until the
 * application gives the task back ({@link #update} to pending, or {@link #releaseClaimsOf}). The
 * boards of every process that
 * shares a backend compare a lease with their own clock: their clocks must agree to well within
 * the lease (NTP does).
 */
public final class TaskBoard {
    /** How many pending tasks {@link #claimNext} reads at a time before trying to claim one. */
    private static final int CLAIM_BATCH = 16;
    /** How many lapsed claims one look gives back at most. */
    private static final int EXPIRED_BATCH = 100;
    /** How long a claim lives without renewal unless the board is given another lease. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    private static final String LAPSED = "its claim through this board lapsed, and the task was claimed again by '";

    private final TaskBackend backend;
    private final Clock clock;
    private final Duration lease;
    private final LeaseKeeper keeper;
    private final long lookForExpiredNanos;
    private final java.util.concurrent.atomic.AtomicLong lastLookForExpired = new java.util.concurrent.atomic.AtomicLong(
            System.nanoTime());

    /** An empty board in memory, on the system clock (UTC). */
    public TaskBoard() {
        this(new InMemoryTaskBackend(), Clock.systemUTC());
    }

    /**
     * A board over a backend, which may already hold tasks.
     *
     * @param backend where the tasks live
     * @param clock the source of created and updated times
     */
    public TaskBoard(TaskBackend backend, Clock clock) {
        this(backend, clock, DEFAULT_LEASE);
    }

    /**
     * A board over a backend whose claims are leases of another length.
     *
     * @param backend where the tasks live
     * @param clock the source of created and updated times, and of lease times
     * @param lease how long a claim lives without renewal: how soon a dead worker's task comes
     *     back; at least 100 ms (the board renews every third of it)
     */
    public TaskBoard(TaskBackend backend, Clock clock, Duration lease) {
        this(backend, clock, lease, true);
    }

    /** A board that renews its claims by itself or not (a holder that stopped renewing, for tests). */
    TaskBoard(TaskBackend backend, Clock clock, Duration lease, boolean heartbeat) {
        if (backend == null || clock == null) {
            throw new IllegalArgumentException("TaskBoard needs a backend and a clock");
        }
        if (lease == null || lease.compareTo(Duration.ofMillis(100)) < 0) {
            throw new IllegalArgumentException("TaskBoard lease must be at least 100 ms, was " + lease);
        }
        this.backend = backend;
        this.clock = clock;
        this.lease = lease;
        this.keeper = new LeaseKeeper(this, lease, heartbeat);
        this.lookForExpiredNanos = lease.toNanos() / 4;
    }

    /**
     * How long a claim lives without renewal: how soon the task of a worker that died comes back.
     *
     * @return the lease
     */
    public Duration lease() {
        return lease;
    }

    /**
     * Adds a pending task.
     *
     * @param title a short name for the work
     * @param description what exactly to do; null or empty for none
     * @return the new task
     */
    public Task create(String title, String description) {
        return create(title, description, null);
    }

    /**
     * Adds a pending task.
     *
     * @param title a short name for the work
     * @param description what exactly to do; null or empty for none
     * @param createdBy the agent or application creating it, or null
     * @return the new task
     */
    public Task create(String title, String description, String createdBy) {
        if (title == null || title.isBlank()) {
            throw new IllegalArgumentException("a task's title must not be null or blank");
        }
        if (createdBy != null && createdBy.isBlank()) {
            throw new IllegalArgumentException("a task's creator must not be blank");
        }
        Instant now = now();
        Task task = new Task("task-" + backend.nextSequence(), title, description == null ? "" : description,
                TaskStatus.PENDING, null, createdBy, null, now, now);
        if (!backend.insert(task)) {
            throw new ShellyException("the task backend already holds a task with id " + task.id()
                    + "; its nextSequence() must never repeat a number");
        }
        return task;
    }

    /**
     * A task by id.
     *
     * @param id e.g. {@code task-1}
     * @return the task, or empty when the board has no such task
     */
    public Optional<Task> get(String id) {
        requireText(id, "task id");
        return backend.get(id);
    }

    /**
     * Every task, in creation order.
     *
     * @return an unmodifiable list
     */
    public List<Task> list() {
        return backend.all();
    }

    /**
     * The tasks with a status and an assignee, in creation order.
     *
     * @param status only tasks with this status, or null for any
     * @param assignee only tasks claimed by this agent, or null for any
     * @return an unmodifiable list
     */
    public List<Task> list(TaskStatus status, String assignee) {
        List<Task> found = new ArrayList<>();
        for (Task t : backend.all()) {
            if ((status == null || t.status() == status) && (assignee == null || assignee.equals(t.assignee()))) {
                found.add(t);
            }
        }
        return Collections.unmodifiableList(found);
    }

    /**
     * Claims a pending task for an agent: it becomes in_progress with the agent as assignee.
     * Atomic: of many concurrent claims of one task, exactly one succeeds.
     *
     * @param id the task's id
     * @param agent the claiming agent's name
     * @return the claimed task
     * @throws IllegalArgumentException when the board has no such task
     * @throws TaskStateException when the task is not pending, e.g. claimed by another agent first
     */
    public Task claim(String id, String agent) {
        requireText(agent, "claiming agent");
        while (true) {
            Task current = require(id);
            if (current.status() != TaskStatus.PENDING) {
                throw new TaskStateException(id, current.status(), TaskStatus.IN_PROGRESS, "cannot claim task " + id
                        + ": it is " + current.status().wireName()
                        + (current.assignee() == null ? "" : ", claimed by '" + current.assignee() + "'")
                        + "; only pending tasks can be claimed");
            }
            Task claimed = claimed(current, agent);
            if (backend.replace(current, claimed)) {
                return held(claimed);
            }
        }
    }

    /**
     * Claims the oldest pending task for an agent. Atomic like {@link #claim}: no two agents get
     * the same task, and empty means there was no pending task left. An agent that loses the
     * oldest task to another at the same moment takes one of the next pending tasks, not
     * necessarily the next oldest.
     *
     * @param agent the claiming agent's name
     * @return the claimed task, or empty when no task is pending
     */
    public Optional<Task> claimNext(String agent) {
        requireText(agent, "claiming agent");
        long last = lastLookForExpired.get();
        if (System.nanoTime() - last > lookForExpiredNanos && lastLookForExpired.compareAndSet(last, System.nanoTime())) {
            releaseExpiredClaims();
        }
        while (true) {
            List<Task> pending = backend.withStatus(TaskStatus.PENDING, CLAIM_BATCH);
            if (pending.isEmpty()) {
                if (!releaseExpiredClaims().isEmpty()) {
                    continue;
                }
                return Optional.empty();
            }
            // The oldest first; an agent that loses it to another tries the rest from a random
            // point, so that concurrent claimers spread out instead of all racing for the next one.
            int n = pending.size();
            int offset = 0;
            for (int k = 0; k < n; k++) {
                Task current = pending.get(k == 0 ? 0 : 1 + (offset + k - 1) % (n - 1));
                Task claimed = claimed(current, agent);
                if (backend.replace(current, claimed)) {
                    return Optional.of(held(claimed));
                }
                if (k == 0 && n > 1) {
                    offset = ThreadLocalRandom.current().nextInt(n - 1);
                }
            }
        }
    }

    /**
     * Gives back every task an agent holds: each of its in_progress tasks becomes pending again,
     * its assignee cleared, so that other agents can claim it. The claims of an agent (or a
     * whole process of agents) that stopped come back by themselves when their leases lapse;
     * this gives them back at once, for an application that knows the agent is gone. Until
     * either happens, such tasks stay visible as in_progress with that agent as assignee, and
     * nothing is lost. Safe while the agent still runs: a task it finishes first is not given back, and a
     * task given back can no longer be completed by it.
     *
     * @param agent the agent whose claims to release
     * @return the tasks given back, as they are now (pending), in creation order
     */
    public List<Task> releaseClaimsOf(String agent) {
        requireText(agent, "agent whose claims to release");
        List<Task> released = new ArrayList<>();
        for (Task held : list(TaskStatus.IN_PROGRESS, agent)) {
            Task current = held;
            while (current.status() == TaskStatus.IN_PROGRESS && agent.equals(current.assignee())) {
                Task next = givenBack(current);
                if (backend.replace(current, next)) {
                    keeper.ended(current.id(), current.claim());
                    released.add(next);
                    break;
                }
                current = require(current.id());
            }
        }
        return Collections.unmodifiableList(released);
    }

    /**
     * Gives back every claim whose lease ran out: each such task becomes pending again, its
     * assignee cleared (one compare-and-set each, so a claim renewed or finished meanwhile is not
     * touched). The board does this by itself, in {@link #claimNext} and in its heartbeat; an
     * application may call it to see lapsed claims come back at once.
     *
     * @return the tasks given back, as they are now (pending)
     */
    public List<Task> releaseExpiredClaims() {
        Instant now = now();
        List<Task> released = new ArrayList<>();
        for (Task expired : backend.expiredClaims(now, EXPIRED_BATCH)) {
            Task next = givenBack(expired);
            if (backend.replace(expired, next)) {
                released.add(next);
            }
        }
        return Collections.unmodifiableList(released);
    }

    /**
     * Renews an agent's claim: its lease runs for the board's {@linkplain #lease() lease} from
     * now. The board's heartbeat does this for every claim made through it; long work that
     * wants to be sure may call it too (in a process that claimed through another board, say).
     *
     * @param id the task's id
     * @param agent the agent holding the claim
     * @return the task with its new lease
     * @throws IllegalArgumentException when the board has no such task
     * @throws TaskStateException when the agent does not hold the task (any more): its lease
     *     lapsed and the task went back (or was claimed again, under the same name too), or it ended
     */
    public Task renew(String id, String agent) {
        requireText(agent, "renewing agent");
        while (true) {
            Task current = require(id);
            if (current.status() != TaskStatus.IN_PROGRESS || !agent.equals(current.assignee())) {
                throw new TaskStateException(id, current.status(), TaskStatus.IN_PROGRESS, "cannot renew the claim of "
                        + "task " + id + " by '" + agent + "': it is " + current.status().wireName()
                        + (current.assignee() == null ? "" : ", claimed by '" + current.assignee() + "'"));
            }
            if (!mine(current, agent)) {
                throw new TaskStateException(id, current.status(), TaskStatus.IN_PROGRESS, "cannot renew the claim of "
                        + "task " + id + " by '" + agent + "': " + LAPSED + agent + "'");
            }
            Task renewed = withLease(current, now().plus(lease));
            if (backend.replace(current, renewed)) {
                return renewed;
            }
        }
    }

    /** The heartbeat's renewal: the lease's new end, or null when the claim of that token no longer holds the task. */
    Instant renewHeld(String id, String token) {
        while (true) {
            Optional<Task> found = backend.get(id);
            if (found.isEmpty() || !token.equals(found.get().claim())) {
                return null;
            }
            Task current = found.get();
            Instant until = now().plus(lease);
            if (backend.replace(current, withLease(current, until))) {
                return until;
            }
        }
    }

    private Task held(Task claimed) {
        keeper.hold(claimed.id(), claimed.assignee(), claimed.claim(), claimed.leaseUntil());
        return claimed;
    }

    /** How many claims this board renews now (for tests). */
    int renewing() {
        return keeper.size();
    }

    /**
     * Whether a claim of the agent is this board's claim: true unless the board's latest claim of
     * the task by that agent has another token (the board's claim lapsed and the task was claimed
     * again under the same name); a claim the board did not make is told by the name alone.
     */
    private boolean mine(Task current, String agent) {
        LeaseKeeper.Claim own = keeper.claimOf(current.id());
        return own == null || !own.agent().equals(agent) || own.token().equals(current.claim());
    }

    private Task claimed(Task pending, String agent) {
        Instant now = now();
        String token = Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
        return new Task(pending.id(), pending.title(), pending.description(), TaskStatus.IN_PROGRESS, agent,
                pending.createdBy(), pending.result(), pending.createdAt(), now, now.plus(lease), token);
    }

    private Task givenBack(Task claimed) {
        return new Task(claimed.id(), claimed.title(), claimed.description(), TaskStatus.PENDING, null,
                claimed.createdBy(), claimed.result(), claimed.createdAt(), now(), null);
    }

    private static Task withLease(Task t, Instant until) {
        return new Task(t.id(), t.title(), t.description(), t.status(), t.assignee(), t.createdBy(), t.result(),
                t.createdAt(), t.updatedAt(), until, t.claim());
    }

    /**
     * Moves a task to another status.
     *
     * @param id the task's id
     * @param status the new status; in_progress is reached by {@link #claim} only
     * @param result what the work produced or why it failed; null keeps the current result
     * @return the updated task
     * @throws IllegalArgumentException when the board has no such task
     * @throws TaskStateException when the move is not legal from the task's current status
     */
    public Task update(String id, TaskStatus status, String result) {
        return update(id, status, result, null);
    }

    /**
     * Moves a task to another status on behalf of an agent, who may mark a task completed or
     * failed only when it is the task's assignee, and, when the agent claimed the task through
     * this board, only under that claim (not when it lapsed and the task was claimed again by an
     * agent of the same name). Moving back to pending gives the task back: its assignee is
     * cleared.
     *
     * @param id the task's id
     * @param status the new status; in_progress is reached by {@link #claim} only
     * @param result what the work produced or why it failed; null keeps the current result
     * @param actor the agent making the change, or null for the application (no assignee check)
     * @return the updated task
     * @throws IllegalArgumentException when the board has no such task
     * @throws TaskStateException when the move is not legal, or the actor may not make it
     */
    public Task update(String id, TaskStatus status, String result, String actor) {
        if (status == null) {
            throw new IllegalArgumentException("the new status of task " + id + " must not be null");
        }
        if (actor != null && actor.isBlank()) {
            throw new IllegalArgumentException("the agent updating task " + id + " must not be blank");
        }
        while (true) {
            Task current = require(id);
            checkMove(current, status, actor);
            if (actor != null && (status == TaskStatus.COMPLETED || status == TaskStatus.FAILED)
                    && !mine(current, actor)) {
                throw new TaskStateException(id, current.status(), status, "agent '" + actor + "' cannot mark task "
                        + id + " " + status.wireName() + ": " + LAPSED + actor + "'");
            }
            String assignee = status == TaskStatus.PENDING ? null : current.assignee();
            Task next = new Task(id, current.title(), current.description(), status, assignee, current.createdBy(),
                    result == null ? current.result() : result, current.createdAt(), now());
            if (backend.replace(current, next)) {
                if (status.isFinal()) {
                    keeper.finished(id);
                } else if (current.claim() != null) {
                    keeper.ended(id, current.claim());
                }
                return next;
            }
        }
    }

    private static void checkMove(Task task, TaskStatus to, String actor) {
        TaskStatus from = task.status();
        String id = task.id();
        if (from == to) {
            throw new TaskStateException(id, from, to, "task " + id + " is already " + from.wireName());
        }
        if (from.isFinal()) {
            throw new TaskStateException(id, from, to, "cannot move task " + id + " from " + from.wireName() + " to "
                    + to.wireName() + ": " + from.wireName() + " is final");
        }
        if (to == TaskStatus.IN_PROGRESS) {
            throw new TaskStateException(id, from, to, "cannot move task " + id + " from " + from.wireName()
                    + " to in_progress by an update: claim it, so that it gets an assignee");
        }
        if (!from.canMoveTo(to)) {
            throw new TaskStateException(id, from, to, "cannot move task " + id + " from " + from.wireName() + " to "
                    + to.wireName() + "; from " + from.wireName() + " a task can move to " + from.successors().stream()
                            .map(s -> s == TaskStatus.IN_PROGRESS ? "in_progress (by claiming it)" : s.wireName())
                            .collect(Collectors.joining(", ")));
        }
        if (actor != null && (to == TaskStatus.COMPLETED || to == TaskStatus.FAILED)
                && !actor.equals(task.assignee())) {
            throw new TaskStateException(id, from, to, "agent '" + actor + "' cannot mark task " + id + " "
                    + to.wireName() + ": it is assigned to '" + task.assignee() + "'");
        }
    }

    /**
     * Blocks until a task's status is no longer {@code from}, or the timeout passes. Returns at
     * once when it already differs. Holds no lock while it waits.
     *
     * @param id the task's id
     * @param from the status the caller last saw
     * @param timeout how long to wait at most; zero or negative means look once without waiting
     * @return the task with its new status, or empty when the timeout passed first
     * @throws IllegalArgumentException when the board has no such task
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public Optional<Task> watch(String id, TaskStatus from, Duration timeout) throws InterruptedException {
        if (from == null) {
            throw new IllegalArgumentException("the status to watch task " + id + " leave must not be null");
        }
        return awaitTask(id, t -> t.status() != from, timeout);
    }

    /**
     * Blocks until a task reaches a final status (completed, failed or cancelled), or the timeout
     * passes. Returns at once when it is final already. Holds no lock while it waits.
     *
     * @param id the task's id
     * @param timeout how long to wait at most; zero or negative means look once without waiting
     * @return the finished task, or empty when the timeout passed first
     * @throws IllegalArgumentException when the board has no such task
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public Optional<Task> awaitFinal(String id, Duration timeout) throws InterruptedException {
        return awaitTask(id, t -> t.status().isFinal(), timeout);
    }

    private Optional<Task> awaitTask(String id, java.util.function.Predicate<Task> done, Duration timeout)
            throws InterruptedException {
        if (timeout == null) {
            throw new IllegalArgumentException("the timeout for watching task " + id + " must not be null");
        }
        require(id);
        return backend.await(() -> Optional.of(require(id)).filter(done), timeout);
    }

    /**
     * The board as tools for agents: {@code tasks_create}, {@code tasks_list}, {@code tasks_get},
     * {@code tasks_claim} and {@code tasks_update}. The claiming (and creating, and updating)
     * agent's name comes from the tool context, never from the model's input.
     *
     * @return a new toolbox over this board
     */
    public ToolBox tools() {
        return TaskTools.toolBox(this, "tasks");
    }

    /**
     * The board as tools whose names start with a namespace: {@code {namespace}_tasks_create} and
     * so on, for an agent that works with more than one board.
     *
     * @param namespace 1 to 51 letters, digits, '_' or '-', so that every tool name stays within
     *     the 64 characters providers accept
     * @return a new toolbox over this board
     * @throws IllegalArgumentException when the namespace cannot prefix a tool name
     */
    public ToolBox tools(String namespace) {
        return TaskTools.toolBox(this, TaskTools.prefix(namespace));
    }

    private Task require(String id) {
        requireText(id, "task id");
        return backend.get(id).orElseThrow(() -> new IllegalArgumentException("no task '" + id + "' on the board"));
    }

    Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }

    private static void requireText(String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("the " + what + " must not be null or blank");
        }
    }

    @Override
    public String toString() {
        return "TaskBoard[" + backend + "]";
    }
}
