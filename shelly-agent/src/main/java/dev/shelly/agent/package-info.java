/**
 * API: the unified Agent, which reasons with a model, acts with tools, follows skills and
 * delegates to other agents in a Registry, with its run context, middleware, hooks, guardrails,
 * events and errors. Start at {@link dev.shelly.agent.Agent}.
 */
package dev.shelly.agent;
