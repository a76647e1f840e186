package dev.shelly.engine;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.PendingCall;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.Usage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.MDC;

/** How a session's log lines say what they say: counts, ids and durations, never a prompt's content. */
final class SessionLog {
    private SessionLog() {}

    /** The ids of calls, joined; {@code none} for none. */
    static String ids(List<PendingCall> calls) {
        List<String> ids = new ArrayList<>(calls.size());
        for (PendingCall p : calls) {
            ids.add(p.id());
        }
        return ids.isEmpty() ? "none" : String.join(", ", ids);
    }

    static String describe(Duration d) {
        return d.toMillis() % 1000 != 0 ? d.toMillis() + " ms" : d.toSeconds() % 60 != 0 ? d.toSeconds() + " s"
                : d.toMinutes() + " min";
    }

    static String describe(Usage u) {
        return u.inputTokens() + " input, " + u.outputTokens() + " output, " + u.cacheReadTokens() + " cache-read, "
                + u.cacheWriteTokens() + " cache-write tokens";
    }

    static String describe(Usage u, Cost c) {
        return describe(u) + ", $" + c.usd().toPlainString()
                + (c.complete() ? "" : " (" + c.unpricedTokens() + " tokens unpriced)");
    }

    /**
     * The model requests and tool calls of a session's turn at DEBUG: names and counts, never
     * their content.
     *
     * @param log the session's logger
     * @param event the event
     * @param session the session's id
     * @param turn the running turn's id, or null
     */
    static void debug(Logger log, AgentEvent event, String session, String turn) {
        String who = event.source().agent();
        boolean foreign = turn != null && MDC.get(Session.MDC_SESSION) == null;
        if (foreign) {
            // A thread the agent started (a tool call, a delegation) whose MDC did not inherit the turn's.
            MDC.put(Session.MDC_SESSION, session);
            MDC.put(Session.MDC_TURN, turn);
        }
        try {
            switch (event) {
                case AgentEvent.CompletionStarted s -> log.debug("session {}: agent '{}' asks its model (iteration {})",
                        session, who, s.iteration());
                case AgentEvent.CompletionFinished f -> log.debug(
                        "session {}: agent '{}' got its model's reply in {} ms ({} tool calls); used {}", session, who,
                        f.took().toMillis(), f.reply().toolCalls().size(), describe(f.usage()));
                case AgentEvent.ToolCallFinished t -> log.debug("session {}: agent '{}' tool '{}' {} in {} ms", session,
                        who, t.call().name(), t.result().isError() ? "failed" : "done", t.took().toMillis());
                default -> { }
            }
        } finally {
            if (foreign) {
                MDC.remove(Session.MDC_SESSION);
                MDC.remove(Session.MDC_TURN);
            }
        }
    }
}
