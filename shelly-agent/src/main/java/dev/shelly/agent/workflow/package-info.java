/**
 * API: workflows beside the unified {@link dev.shelly.agent.Agent}: deterministic shapes of several
 * runners working together, each of them a {@link dev.shelly.agent.Runner} itself so that any
 * can be a member of any other.
 *
 * <ul>
 *   <li>{@link dev.shelly.agent.workflow.Team}: members with roles over a shared chat, each with
 *       a private chat synced through a cursor, and a {@link dev.shelly.agent.workflow.Coordinator}
 *       that says who acts next (built in: sequence, loop, round-robin-until, role-round-robin, and
 *       one that lets a model decide).
 *   <li>{@link dev.shelly.agent.workflow.Handoff}: agents share one chat and pass control with
 *       {@code transfer_to_<name>} tools.
 *   <li>{@link dev.shelly.agent.workflow.AgentTool}: any runner as a tool, {@code {"task": ...}} in,
 *       final text out.
 * </ul>
 */
package dev.shelly.agent.workflow;
