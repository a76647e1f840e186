/**
 * API: {@link dev.shelly.testing.logs.LogCapture}, the one in-memory capture of slf4j and
 * {@code System.Logger} lines that tests assert on. For test scope.
 */
package dev.shelly.testing.logs;
