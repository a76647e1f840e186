package dev.shelly.state.tasks;

import java.time.Instant;

/**
 * One unit of work on a {@link TaskBoard}.
 *
 * @param id the board's id for it, e.g. {@code task-1}
 * @param title a short name for the work
 * @param description what exactly to do; may be empty
 * @param status where it stands
 * @param assignee the agent that claimed it; null while pending and for a task cancelled
 *     before anyone claimed it, never null while in progress
 * @param createdBy the agent or application that created it, or null when not known
 * @param result what the work produced, or why it failed, or null
 * @param createdAt when it was created
 * @param updatedAt when it last changed
 * @param leaseUntil while in progress, when the claim lapses unless its holder renews it (then
 *     the task goes back to pending, see {@link TaskBoard#lease()}); null for a claim that never
 *     lapses (one made before claims were leases) and for every task not in progress
 * @param claim while in progress, the token of this claim: a random text set when the task is
 *     claimed, different for every claim, so that a board tells its own claim from a later one
 *     by an agent of the same name (its lease lapsed and the task was claimed again); null for a
 *     claim made before claims had tokens and for every task not in progress
 */
public record Task(String id, String title, String description, TaskStatus status, String assignee,
        String createdBy, String result, Instant createdAt, Instant updatedAt, Instant leaseUntil, String claim) {

    /**
     * A task with no lease: a claim that never lapses, or a task not in progress.
     *
     * @param id the board's id for it
     * @param title a short name for the work
     * @param description what exactly to do; may be empty
     * @param status where it stands
     * @param assignee the agent that claimed it
     * @param createdBy the agent or application that created it, or null
     * @param result what the work produced, or why it failed, or null
     * @param createdAt when it was created
     * @param updatedAt when it last changed
     */
    public Task(String id, String title, String description, TaskStatus status, String assignee, String createdBy,
            String result, Instant createdAt, Instant updatedAt) {
        this(id, title, description, status, assignee, createdBy, result, createdAt, updatedAt, null, null);
    }

    /**
     * A task whose claim has no token (one made before claims had tokens), or a task not in
     * progress.
     *
     * @param id the board's id for it
     * @param title a short name for the work
     * @param description what exactly to do; may be empty
     * @param status where it stands
     * @param assignee the agent that claimed it
     * @param createdBy the agent or application that created it, or null
     * @param result what the work produced, or why it failed, or null
     * @param createdAt when it was created
     * @param updatedAt when it last changed
     * @param leaseUntil while in progress, when the claim lapses; null for none
     */
    public Task(String id, String title, String description, TaskStatus status, String assignee, String createdBy,
            String result, Instant createdAt, Instant updatedAt, Instant leaseUntil) {
        this(id, title, description, status, assignee, createdBy, result, createdAt, updatedAt, leaseUntil, null);
    }

    /** Validates the fields, the assignee rule of the status, and that only a claim has a lease and a token. */
    public Task {
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("Task.id must not be null or blank");
        }
        if (title == null || title.isBlank()) {
            throw new IllegalArgumentException("Task.title of " + id + " must not be null or blank");
        }
        if (description == null) {
            throw new IllegalArgumentException("Task.description of " + id + " must not be null; use \"\" for none");
        }
        if (status == null) {
            throw new IllegalArgumentException("Task.status of " + id + " must not be null");
        }
        if (assignee != null && assignee.isBlank()) {
            throw new IllegalArgumentException("Task.assignee of " + id + " must not be blank");
        }
        if (status == TaskStatus.IN_PROGRESS && assignee == null) {
            throw new IllegalArgumentException("Task.assignee of " + id + " must be set while it is in_progress");
        }
        if (status == TaskStatus.PENDING && assignee != null) {
            throw new IllegalArgumentException("Task.assignee of " + id + " must be null while it is pending, was '"
                    + assignee + "'");
        }
        if (createdBy != null && createdBy.isBlank()) {
            throw new IllegalArgumentException("Task.createdBy of " + id + " must not be blank");
        }
        if (createdAt == null || updatedAt == null) {
            throw new IllegalArgumentException("Task.createdAt and Task.updatedAt of " + id + " must not be null");
        }
        if (leaseUntil != null && status != TaskStatus.IN_PROGRESS) {
            throw new IllegalArgumentException("Task.leaseUntil of " + id + " must be null while it is "
                    + status.wireName() + ": only a claim has a lease");
        }
        if (claim != null && (status != TaskStatus.IN_PROGRESS || claim.isBlank())) {
            throw new IllegalArgumentException("Task.claim of " + id + " must be null while it is "
                    + status.wireName() + ", and not blank while in_progress: only a claim has a token");
        }
    }
}
