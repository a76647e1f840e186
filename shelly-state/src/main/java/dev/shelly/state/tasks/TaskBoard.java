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
 */
public final class TaskBoard {
    /** How many pending tasks {@link #claimNext} reads at a time before trying to claim one. */
    private static final int CLAIM_BATCH = 16;

    private final TaskBackend backend;
    private final Clock clock;

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
        if (backend == null || clock == null) {
            throw new IllegalArgumentException("TaskBoard needs a backend and a clock");
        }
        this.backend = backend;
        this.clock = clock;
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
                return claimed;
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
        while (true) {
            List<Task> pending = backend.withStatus(TaskStatus.PENDING, CLAIM_BATCH);
            if (pending.isEmpty()) {
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
                    return Optional.of(claimed);
                }
                if (k == 0 && n > 1) {
                    offset = ThreadLocalRandom.current().nextInt(n - 1);
                }
            }
        }
    }

    /**
     * Gives back every task an agent holds: each of its in_progress tasks becomes pending again,
     * its assignee cleared, so that other agents can claim it. This is the recovery policy for an
     * agent (or a whole process of agents) that stopped while holding claims: until it is
     * called, such tasks stay visible as in_progress with that agent as assignee, and nothing is
     * lost. Safe while the agent still runs: a task it finishes first is not given back, and a
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
                Task next = new Task(current.id(), current.title(), current.description(), TaskStatus.PENDING, null,
                        current.createdBy(), current.result(), current.createdAt(), now());
                if (backend.replace(current, next)) {
                    released.add(next);
                    break;
                }
                current = require(current.id());
            }
        }
        return Collections.unmodifiableList(released);
    }

    private Task claimed(Task pending, String agent) {
        return new Task(pending.id(), pending.title(), pending.description(), TaskStatus.IN_PROGRESS, agent,
                pending.createdBy(), pending.result(), pending.createdAt(), now());
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
     * failed only when it is the task's assignee. Moving back to pending gives the task back: its
     * assignee is cleared.
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
            String assignee = status == TaskStatus.PENDING ? null : current.assignee();
            Task next = new Task(id, current.title(), current.description(), status, assignee, current.createdBy(),
                    result == null ? current.result() : result, current.createdAt(), now());
            if (backend.replace(current, next)) {
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

    private Instant now() {
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
