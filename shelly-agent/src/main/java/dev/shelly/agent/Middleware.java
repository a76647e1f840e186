package dev.shelly.agent;

import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;

/**
 * Wraps a {@link Runner} into another that adds behaviour around it: a deadline, logging,
 * checks. The wrapper keeps the inner runner's name and chat ({@link Runner#around} does that).
 *
 * <p>An agent applies its middleware list around its ReAct loop; the first in the list is the
 * outermost:
 * <pre>{@code
 * Agent.builder("assistant")
 *     .middleware(Middleware.logger(log),            // outermost: sees everything
 *                 Middleware.timeout(Duration.ofSeconds(60)),
 *                 Middleware.recovery(),
 *                 Middleware.outputGuardrail(reply -> reply.text().contains("SECRET")
 *                         ? Optional.of("leaks a secret") : Optional.empty()))
 * }</pre>
 *
 * <p>An agent's middleware is a convenience on its run's interception chain: the list is one
 * link around the run, inside the links of the run's context and the agent's interceptors (see
 * {@link RunInterceptor} for the order); a pause passes through it as {@link RunPausedException}.
 */
@FunctionalInterface
public interface Middleware {

    /**
     * Wraps a runner.
     *
     * @param next the runner to wrap
     * @return the wrapping runner, with {@code next}'s name and chat
     */
    Runner wrap(Runner next);

    /**
     * Wraps a runner in a list of middleware, the first outermost.
     *
     * @param runner the innermost runner
     * @param middleware the middleware, outermost first
     * @return the wrapped runner ({@code runner} itself for an empty list)
     */
    static Runner apply(Runner runner, List<Middleware> middleware) {
        if (runner == null || middleware == null) {
            throw new IllegalArgumentException("Middleware.apply needs a runner and a list of middleware");
        }
        Runner wrapped = runner;
        for (int i = middleware.size() - 1; i >= 0; i--) {
            Runner next = middleware.get(i).wrap(wrapped);
            if (next == null) {
                throw new IllegalStateException("middleware[" + i + "] (" + middleware.get(i)
                        + ") returned null instead of a runner for '" + runner.name() + "'");
            }
            wrapped = next;
        }
        return wrapped;
    }

    /**
     * Stops the run when it takes longer than a limit.
     *
     * <p>The inner runner works on a virtual thread of its own; at the deadline that thread is
     * interrupted (so an agent stops its model call and tools and answers every open tool call
     * with a cancelled result), and an {@link AgentTimeoutException} is thrown once it has
     * stopped, or after the run's {@linkplain RunContext#cancelGrace() grace} when it ignores the
     * interrupt; a run that still succeeds within the grace returns its reply. Interrupting the
     * caller cancels the inner runner the same way and throws a
     * {@link java.util.concurrent.CancellationException}.
     *
     * @param limit how long a run may take
     * @return the middleware
     */
    static Middleware timeout(Duration limit) {
        if (limit == null || limit.isNegative() || limit.isZero()) {
            throw new IllegalArgumentException("Middleware.timeout limit must be positive, was " + limit);
        }
        return next -> Runner.around(next, context -> BuiltinMiddleware.withTimeout(next, limit, context));
    }

    /**
     * Turns an unexpected exception or error from inside (a bug in a tool wiring, a listener, a
     * custom completer) into an {@link AgentException} naming the agent and the original failure,
     * with the original as its cause.
     *
     * <p>Shelly's own exceptions ({@link dev.shelly.chats.ShellyException}: model errors,
     * iteration limits, timeouts) and cancellation pass through unchanged, as does
     * {@link OutOfMemoryError}.
     *
     * @return the middleware
     */
    static Middleware recovery() {
        return next -> Runner.around(next, context -> BuiltinMiddleware.recovering(next, context));
    }

    /**
     * Logs each run: its start and its end with the duration, at INFO; a failure with its
     * exception at ERROR; a cancellation at INFO. The final message's text is logged at DEBUG
     * only; prompts are never logged.
     *
     * @param log where to log
     * @return the middleware
     */
    static Middleware logger(Logger log) {
        if (log == null) {
            throw new IllegalArgumentException("Middleware.logger log must not be null");
        }
        return next -> Runner.around(next, context -> BuiltinMiddleware.logging(next, context, log));
    }

    /**
     * Checks the final message: when the check gives a reason, the run fails with a
     * {@link GuardrailException} carrying it (the message stays in the chat). A check that
     * throws rejects the message too.
     *
     * @param check the check
     * @return the middleware
     */
    static Middleware outputGuardrail(Guardrail check) {
        if (check == null) {
            throw new IllegalArgumentException("Middleware.outputGuardrail check must not be null");
        }
        return next -> Runner.around(next, context -> BuiltinMiddleware.guarded(next, context, check));
    }
}
