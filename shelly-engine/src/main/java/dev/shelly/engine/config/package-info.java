/**
 * API: the engine's configuration as records, built in code or read from .shelly/config.yaml, and
 * the {@link dev.shelly.engine.config.ConfigException} that names the file, line and field of a
 * bad setting. Where a section configures a runtime value (a retry policy, a rate limit, a tool
 * policy, a context strategy), the records hold that value itself.
 */
package dev.shelly.engine.config;
