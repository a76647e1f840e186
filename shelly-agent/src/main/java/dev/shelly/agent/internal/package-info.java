/**
 * Internal: the machinery behind the agent and its workflows: context management (the model's
 * view of each call and its token account), fan-out of concurrent work, and run observation. The
 * types here are public only so that {@code dev.shelly.agent} and its packages can use them; they
 * may change in any release.
 */
package dev.shelly.agent.internal;
