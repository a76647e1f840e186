package dev.shelly.agent;

import dev.shelly.chats.ToolCall;
import java.time.Instant;

/**
 * A tool call waiting for a person's decision; answer it with {@link Approvals#answer}.
 *
 * @param id the call's key in the paused run: the call id, after the path of the delegation it
 *     was made in ({@code call_2/0/call_1}: the first task of the top agent's call
 *     {@code call_2}, that child's call {@code call_1})
 * @param agent the agent that made the call
 * @param call the call, with its arguments, as the model made it
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
        QUESTION
    }

    /** Validates the fields. */
    public PendingCall {
        if (id == null || id.isBlank() || agent == null || call == null || kind == null || reason == null
                || since == null) {
            throw new IllegalArgumentException("PendingCall fields must not be null or blank");
        }
    }
}
