package dev.shelly.state.tasks;

import dev.shelly.chats.ShellyException;

/**
 * A task could not make the requested move: the transition is not legal from its current
 * status, another agent claimed it first, or the agent asking is not its assignee. The message
 * names the task and both statuses.
 */
public final class TaskStateException extends ShellyException {
    private static final long serialVersionUID = 1L;

    /** The id of the task. */
    private final String taskId;
    /** The status the task is in. */
    private final TaskStatus current;
    /** The status the change asked for. */
    private final TaskStatus requested;

    /**
     * Creates the exception.
     *
     * @param taskId the task's id
     * @param current the task's status when the move was refused
     * @param requested the status asked for
     * @param message what went wrong
     */
    public TaskStateException(String taskId, TaskStatus current, TaskStatus requested, String message) {
        super(message);
        this.taskId = taskId;
        this.current = current;
        this.requested = requested;
    }

    /**
     * The task's id.
     *
     * @return the id
     */
    public String taskId() {
        return taskId;
    }

    /**
     * The task's status when the move was refused.
     *
     * @return the status
     */
    public TaskStatus current() {
        return current;
    }

    /**
     * The status asked for.
     *
     * @return the status
     */
    public TaskStatus requested() {
        return requested;
    }
}
