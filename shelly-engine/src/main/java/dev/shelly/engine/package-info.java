/**
 * API: the composition root, which reads .shelly/config.yaml, builds the providers, tools, skills
 * and agents, and runs sessions. Start at {@link dev.shelly.engine.Engine}.
 */
package dev.shelly.engine;
