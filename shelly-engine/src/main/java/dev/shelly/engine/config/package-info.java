/**
 * API: the engine's configuration as records, built in code or read from .shelly/config.yaml, and
 * the {@link dev.shelly.engine.config.ConfigException} that names the file, line and field of a
 * bad setting.
 */
package dev.shelly.engine.config;
