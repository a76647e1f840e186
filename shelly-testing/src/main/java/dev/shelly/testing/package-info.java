/**
 * API: test utilities, for test scope: {@link dev.shelly.testing.ScriptedCompleter}, a Completer
 * that plays back a script of replies and records what it was asked.
 */
package dev.shelly.testing;
