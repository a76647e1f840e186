package dev.shelly.agent;

import dev.shelly.agent.internal.FanOut;
import dev.shelly.agent.internal.Observers;
import dev.shelly.chats.Message;
import dev.shelly.chats.ShellyException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/** The bodies of the built-in middleware. */
final class BuiltinMiddleware {
    private BuiltinMiddleware() {}

    static Message withTimeout(Runner next, Duration limit, RunContext context) {
        FanOut.Joined<Message> joined = FanOut.<Message>of(List.of(() -> next.run(context)))
                .deadline(limit)
                .grace(context.cancelGrace())
                .names(i -> "shelly-timeout-" + next.name())
                .propagate(Observers.propagation(context.observers()))
                .join();
        FanOut.Outcome<Message> outcome = joined.outcomes().getFirst();
        if (outcome instanceof FanOut.Outcome.Success<Message> s) {
            return s.value();
        }
        if (joined.interrupted()) {
            throw new CancellationException("agent '" + next.name() + "' was cancelled");
        }
        if (joined.timedOut()) {
            throw new AgentTimeoutException(next.name(), limit);
        }
        Throwable cause = ((FanOut.Outcome.Failure<Message>) outcome).error();
        if (cause instanceof RuntimeException r) {
            throw r;
        }
        if (cause instanceof Error err) {
            throw err;
        }
        throw new ShellyException("runner failed: " + cause, cause);
    }

    static Message recovering(Runner next, RunContext context) {
        try {
            return next.run(context);
        } catch (ShellyException | CancellationException | OutOfMemoryError e) {
            throw e;
        } catch (RuntimeException | Error e) {
            throw new AgentException(next.name(), "agent '" + next.name() + "' failed unexpectedly: " + e, e);
        }
    }

    static Message logging(Runner next, RunContext context, Logger log) {
        long start = System.nanoTime();
        log.info("agent '{}' started", next.name());
        try {
            Message reply = next.run(context);
            log.info("agent '{}' finished in {} ms", next.name(), millisSince(start));
            if (log.isDebugEnabled()) {
                log.debug("agent '{}' replied: {}", next.name(), reply.text());
            }
            return reply;
        } catch (CancellationException e) {
            log.info("agent '{}' was cancelled after {} ms", next.name(), millisSince(start));
            throw e;
        } catch (RuntimeException | Error e) {
            log.error("agent '{}' failed after {} ms: {}", next.name(), millisSince(start), e.getMessage(), e);
            throw e;
        }
    }

    static Message guarded(Runner next, RunContext context, Guardrail check) {
        Message reply = next.run(context);
        Optional<String> reason;
        try {
            reason = check.check(reply);
        } catch (RuntimeException e) {
            throw new GuardrailException(next.name(), "the check itself failed: " + e, reply, e);
        }
        if (reason != null && reason.isPresent()) {
            throw new GuardrailException(next.name(), reason.get(), reply, null);
        }
        return reply;
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }
}
