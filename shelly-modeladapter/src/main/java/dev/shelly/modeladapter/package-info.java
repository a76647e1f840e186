/**
 * API: the {@link dev.shelly.modeladapter.Completer} contract at the centre of Shelly and what
 * every completer shares: requests and options, streamed deltas, token usage and cost, stop
 * reasons, retries, rate limits and one error type.
 */
package dev.shelly.modeladapter;
