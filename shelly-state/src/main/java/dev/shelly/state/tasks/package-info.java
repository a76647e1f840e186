/**
 * API: a task board agents share: tasks with owners, dependencies and statuses, the tools that
 * work on them, and the {@link dev.shelly.state.tasks.TaskBackend} they live in.
 */
package dev.shelly.state.tasks;
