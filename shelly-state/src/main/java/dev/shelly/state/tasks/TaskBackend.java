package dev.shelly.state.tasks;

import dev.shelly.state.Watchable;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Where a {@link TaskBoard} keeps its tasks: in memory by default ({@link InMemoryTaskBackend}),
 * or in something several processes share, like Redis or a database.
 *
 * <p>The board builds every guarantee it gives (one winner per claim, legal transitions only,
 * unique ids, watching) from these primitives, so a backend must meet this contract:
 * <ul>
 *   <li>Every method is safe to call from many threads (or processes) at once, and atomic.</li>
 *   <li>{@link #nextSequence()} never returns the same number twice.</li>
 *   <li>{@link #insert} stores a task only when no task has its id.</li>
 *   <li>{@link #replace} is a compare-and-set: it stores {@code next} only when the stored task
 *       {@linkplain Task#equals equals} {@code expected}, decided atomically with the write. Of
 *       many concurrent calls with the same {@code expected}, at most one succeeds.</li>
 *   <li>{@link #all()} returns the tasks in the order they were inserted, and
 *       {@link #withStatus} the first of them with a status, in the same order.</li>
 *   <li>Tasks are never removed by the board.</li>
 *   <li>Every successful {@code insert} and {@code replace} raises the
 *       {@linkplain Watchable#revision() revision} after it is visible to readers, which wakes
 *       the board's watchers.</li>
 * </ul>
 */
public interface TaskBackend extends Watchable {

    /**
     * A number for the next task's id.
     *
     * @return a number never returned before, from 1 up
     */
    long nextSequence();

    /**
     * Stores a new task.
     *
     * @param task the task
     * @return true when stored, false when a task with its id exists
     */
    boolean insert(Task task);

    /**
     * A task by id.
     *
     * @param id the id
     * @return the task, or empty
     */
    Optional<Task> get(String id);

    /**
     * Every task, in insertion order.
     *
     * @return the tasks
     */
    List<Task> all();

    /**
     * Replaces a task only when it is unchanged since the caller read it.
     *
     * @param expected the task as the caller read it
     * @param next the task to store; it has the same id
     * @return true when stored
     */
    boolean replace(Task expected, Task next);

    /**
     * The first tasks with a status, in insertion order: what {@link TaskBoard#claimNext} reads,
     * so that a backend can answer from an index instead of reading every task. The default
     * filters {@link #all()}.
     *
     * @param status the status
     * @param limit the most tasks to return, at least 1
     * @return up to {@code limit} tasks, in insertion order
     */
    default List<Task> withStatus(TaskStatus status, int limit) {
        if (status == null || limit < 1) {
            throw new IllegalArgumentException("TaskBackend.withStatus needs a status and a limit of at least 1, got "
                    + status + " and " + limit);
        }
        return all().stream().filter(t -> t.status() == status).limit(limit).toList();
    }

    /**
     * The first claims whose lease ran out before {@code now}: in_progress tasks whose
     * {@link Task#leaseUntil()} is set and earlier. What {@link TaskBoard} reads to give lapsed
     * claims back, so that a backend can answer from an index of leases instead of reading every
     * task. The default filters {@link #all()}.
     *
     * @param now the board's time
     * @param limit the most tasks to return, at least 1
     * @return up to {@code limit} tasks, in any order
     */
    default List<Task> expiredClaims(Instant now, int limit) {
        return lapsedClaims(now == null || limit < 1 ? List.of() : all(), now, limit);
    }

    /**
     * The claims among some tasks whose lease ran out before {@code now}, as {@link #expiredClaims}
     * returns them: for a backend that reads the candidates from an index of leases (whose order
     * or precision may differ), so that each task's own lease decides.
     *
     * @param candidates the tasks to look at
     * @param now the board's time
     * @param limit the most tasks to return, at least 1
     * @return up to {@code limit} of the candidates, in their order
     * @throws IllegalArgumentException when {@code candidates} or {@code now} is null, or {@code limit}
     *     below 1
     */
    static List<Task> lapsedClaims(List<Task> candidates, Instant now, int limit) {
        if (candidates == null) {
            throw new IllegalArgumentException("TaskBackend.lapsedClaims candidates must not be null");
        }
        if (now == null || limit < 1) {
            throw new IllegalArgumentException("TaskBackend.expiredClaims needs a time and a limit of at least 1, got "
                    + now + " and " + limit);
        }
        return candidates.stream()
                .filter(t -> t.status() == TaskStatus.IN_PROGRESS && t.leaseUntil() != null
                        && t.leaseUntil().isBefore(now))
                .limit(limit).toList();
    }
}
