/**
 * Internal: the console's HTTP server ({@link dev.shelly.console.internal.Server}), its event hub
 * and bounded client streams, its views of sessions and runs, and the
 * {@link dev.shelly.console.internal.ConsoleExtension} the engine loads for a {@code console:}
 * section. Not exported; may change in any release.
 */
package dev.shelly.console.internal;
