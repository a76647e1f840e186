package dev.shelly.agent;

import dev.shelly.modeladapter.ModelRequest;

/**
 * A model call about to be made or just made, as a {@link ModelCallHook} sees it.
 *
 * @param run the run making the call
 * @param iteration the iteration of the run, from 1
 * @param request the request (for {@link ModelCallHook#beforeModelCall}, with an earlier hook's
 *     rewrite; for {@link ModelCallHook#afterModelCall}, the request that was sent)
 */
public record ModelCall(RunContext run, int iteration, ModelRequest request) {}
