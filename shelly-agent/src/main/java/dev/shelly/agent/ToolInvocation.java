package dev.shelly.agent;

import dev.shelly.chats.ToolCall;

/**
 * A tool call about to run or just run, as a {@link ToolCallHook} sees it.
 *
 * @param run the run making the call
 * @param iteration the iteration of the run, from 1
 * @param call the call as the model made it (for {@link ToolCallHook#beforeToolCall}, with the
 *     arguments of an earlier hook's rewrite)
 */
public record ToolInvocation(RunContext run, int iteration, ToolCall call) {}
