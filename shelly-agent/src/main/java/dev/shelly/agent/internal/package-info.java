/**
 * Internal: helpers the agent and its workflows share. The types here are public only
 * so that {@code dev.shelly.agent} and {@code dev.shelly.agent.workflow} can use them; they may
 * change in any release.
 */
package dev.shelly.agent.internal;
