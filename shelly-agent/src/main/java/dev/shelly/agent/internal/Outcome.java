package dev.shelly.agent.internal;

import dev.shelly.agent.PendingCall;
import dev.shelly.agent.RunPausedException;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolCall;
import java.util.List;
import java.util.Map;

/**
 * Internal, not API. How a run, or one turn of its tool calls, ended: answered, or paused with
 * some calls waiting. A pause is a value the loop returns; only the agent's public run methods
 * turn it into a {@link RunPausedException}.
 */
public sealed interface Outcome {

    /**
     * The message the run or the turn ended with.
     *
     * @return the message
     */
    Message reply();

    /**
     * Answered: for a run, its final message; for a turn, the tool message appended.
     *
     * @param reply the message
     */
    record Answered(Message reply) implements Outcome {}

    /**
     * Paused: some calls of the turn wait for a decision, or for a delegated child that waits.
     * Nothing answers the calls yet.
     *
     * @param reply the reply whose calls wait
     * @param agent the agent whose turn waits
     * @param runId the run, or null
     * @param reasons why each waiting call waits, by call id
     * @param decisions what the approvals wait for, or null when the run has no approvals
     */
    record Paused(Message reply, String agent, String runId, Map<String, String> reasons, List<PendingCall> decisions)
            implements Outcome {
        /** Copies the reasons, keeping their order. */
        public Paused {
            reasons = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(reasons));
        }

        /**
         * {@return the calls of the turn, in order}
         */
        public List<ToolCall> calls() {
            return reply.toolCalls();
        }

        /**
         * {@return what the pause says} As {@link RunPausedException#getMessage()} says it.
         */
        public String message() {
            return describe(agent, reasons, decisions != null);
        }

        /**
         * {@return a new public signal of this pause}
         */
        public RunPausedException signal() {
            return decisions == null ? new RunPausedException(agent, runId, calls(), reasons)
                    : new RunPausedException(agent, runId, calls(), reasons, decisions);
        }

        /** The text of a pause: why the calls wait, after who waits and for what. */
        static String describe(String agent, Map<String, String> reasons, boolean forDecision) {
            return "agent '" + agent + "' paused " + (forDecision ? "for a decision" : "before its tool calls ran")
                    + ": " + String.join("; ", reasons.values());
        }
    }
}
