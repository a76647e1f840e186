package dev.shelly.agent;

import dev.shelly.chats.ToolCall;
import java.time.Instant;

/**
 * A tool call waiting for a person's decision; answer it with {@link Approvals#answer}. A session
 * whose turn a crash cut short lists {@link Kind#INTERRUPTED} entries too (the engine's
 * {@code Session} answers them).
 *
 * @param id the call's key in the paused run: the call id, after the path of the delegation it
 *     was made in ({@code call_2/0/call_1}: the first task of the top agent's call
 *     {@code call_2}, that child's call {@code call_1})
 * @param agent the agent that made the call
 * @param call the call, with its arguments, as the model made it; null only for the
 *     {@link Kind#INTERRUPTED} entry of a turn that had no call running
 * @param kind an approval or a question
 * @param reason why it waits (for a question: the question)
 * @param since when it began waiting; a decision timeout counts from here, across restarts
 */
public record PendingCall(String id, String agent, ToolCall call, Kind kind, String reason, Instant since) {

    /** What the call waits for. */
    public enum Kind {
        /** Approve, deny or edit the call. */
        APPROVAL,
        /** Answer the model's question ({@link AskUser#NAME}) with {@link Answer#reply}. */
        QUESTION,
        /**
         * The process stopped while the call ran (or, with a null call, while its turn ran) and
         * its outcome is unknown: {@link Answer#approve()} runs it again, {@link Answer#deny}
         * tells the model its outcome is unknown. Only calls of tools that are not
         * {@linkplain dev.shelly.tools.Tool#idempotent() idempotent} are listed: those run again by
         * themselves.
         */
        INTERRUPTED
    }

    /** Validates the fields. */
    public PendingCall {
        if (id == null || id.isBlank() || agent == null || kind == null || reason == null || since == null
                || (call == null && kind != Kind.INTERRUPTED)) {
            throw new IllegalArgumentException("PendingCall fields must not be null or blank");
        }
    }
}
