/**
 * API: a browser console on an engine ({@link dev.shelly.console.Console}): sessions,
 * conversations, the live run tree, tokens and cost per turn, and the decisions a turn waits for.
 */
package dev.shelly.console;
