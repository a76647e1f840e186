package dev.shelly.agent;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

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
        AgentListener listener, List<RunInterceptor> interceptors, List<RunInterceptor> middleware) {
    /**
     * Whether runs entered with these defaults and with {@code other} from one scope get equal
     * scopes: everything but the agent's name is the same (the same registry, listener and links).
     */
    boolean sameScope(RunDefaults other) {
        return other == this || registry == other.registry && listener == other.listener
                && maxDelegationDepth == other.maxDelegationDepth && Objects.equals(cancelGrace, other.cancelGrace)
                && same(interceptors, other.interceptors) && same(middleware, other.middleware);
    }

    private static boolean same(List<RunInterceptor> a, List<RunInterceptor> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (a.get(i) != b.get(i)) {
                return false;
            }
        }
        return true;
    }
}
