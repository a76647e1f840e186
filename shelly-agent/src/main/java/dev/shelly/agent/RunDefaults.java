package dev.shelly.agent;

import java.time.Duration;
import java.util.List;

/**
 * What an agent brings to the context of each of its runs, made once when it is built; a run's
 * {@link RunContext} is entered from the caller's with it.
 *
 * @param agent its name
 * @param registry its own registry, or null to use the context's
 * @param cancelGrace its own grace, or null to use the context's
 * @param maxDelegationDepth its delegation limit
 * @param listener its listener
 * @param interceptors its links, which its delegated children inherit
 * @param middleware its links around its own runs only
 */
record RunDefaults(String agent, Registry registry, Duration cancelGrace, int maxDelegationDepth,
        AgentListener listener, List<RunInterceptor> interceptors, List<RunInterceptor> middleware) {}
