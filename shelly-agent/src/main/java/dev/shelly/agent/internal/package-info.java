/**
 * Internal: the machinery behind the agent and its workflows: the run (its entry, {@link
 * dev.shelly.agent.internal.Runs}, and its state), the ReAct loop, the tool turn, delegation and
 * the built-in tools, the chains a run passes its model calls, decisions and tool calls down,
 * context management (the model's view of each call and its token account), fan-out of
 * concurrent work, and run observation. The types here are public only so that
 * {@code dev.shelly.agent} and its packages can use them; the module does not export the
 * package, and it may change in any release.
 */
package dev.shelly.agent.internal;
