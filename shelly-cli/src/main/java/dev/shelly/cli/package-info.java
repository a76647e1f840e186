/**
 * The {@code shelly} command: an application over the engine's public API, not a library (no
 * module exports it, no other module uses it). {@link dev.shelly.cli.Main} and the
 * {@link dev.shelly.cli.Launcher} in front of it are public because the JVM starts them; every
 * other type is package-private.
 */
package dev.shelly.cli;
