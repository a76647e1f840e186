package dev.shelly.state.tasks;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * Where a task stands, and which moves are legal from there.
 *
 * <pre>
 *   pending ──claim──► in_progress ──► completed | failed | cancelled
 *      │                    │
 *      └──► cancelled       └──► pending   (given back: the assignee is cleared)
 * </pre>
 *
 * <p>A pending task becomes in_progress only by being claimed, which records its assignee.
 * {@code completed}, {@code failed} and {@code cancelled} are final: nothing leaves them. To
 * retry a failed task, create a new one.
 */
public enum TaskStatus {
    /** Created and waiting for an agent to claim it. */
    PENDING("pending"),
    /** Claimed by an agent, its assignee, who is working on it. */
    IN_PROGRESS("in_progress"),
    /** Done; final. */
    COMPLETED("completed"),
    /** Given up on by its assignee; final. */
    FAILED("failed"),
    /** No longer wanted; final. */
    CANCELLED("cancelled");

    private final String wireName;

    TaskStatus(String wireName) {
        this.wireName = wireName;
    }

    /**
     * The name used in tool input and output, e.g. {@code in_progress}.
     *
     * @return the wire name
     */
    public String wireName() {
        return wireName;
    }

    /**
     * The status with a wire name.
     *
     * @param name e.g. {@code completed}
     * @return the status
     * @throws IllegalArgumentException when no status has that name; the message lists them
     */
    public static TaskStatus fromWireName(String name) {
        if (name == null) {
            throw new IllegalArgumentException("TaskStatus.fromWireName name must not be null; use one of: "
                    + String.join(", ", java.util.Arrays.stream(values()).map(TaskStatus::wireName).toList()));
        }
        for (TaskStatus s : values()) {
            if (s.wireName.equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown task status " + (name == null ? "null" : "'" + name + "'")
                + "; use one of: pending, in_progress, completed, failed, cancelled");
    }

    /**
     * The statuses a task may move to from this one.
     *
     * @return an unmodifiable set, empty for a final status
     */
    public Set<TaskStatus> successors() {
        return Collections.unmodifiableSet(switch (this) {
            case PENDING -> EnumSet.of(IN_PROGRESS, CANCELLED);
            case IN_PROGRESS -> EnumSet.of(COMPLETED, FAILED, CANCELLED, PENDING);
            case COMPLETED, FAILED, CANCELLED -> EnumSet.noneOf(TaskStatus.class);
        });
    }

    /**
     * Whether a task may move from this status to another.
     *
     * @param next the status to move to
     * @return true when the move is legal
     */
    public boolean canMoveTo(TaskStatus next) {
        if (next == null) {
            throw new IllegalArgumentException("TaskStatus.canMoveTo next must not be null");
        }
        return successors().contains(next);
    }

    /**
     * Whether nothing leaves this status: completed, failed or cancelled.
     *
     * @return true for a final status
     */
    public boolean isFinal() {
        return successors().isEmpty();
    }
}
