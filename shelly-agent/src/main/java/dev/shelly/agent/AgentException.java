package dev.shelly.agent;

import dev.shelly.chats.Message;
import dev.shelly.chats.ShellyException;
import java.time.Duration;
import java.util.List;

/**
 * An agent failed. The message names the agent and says what went wrong. The nested classes are
 * the failures a caller may want to tell apart: a run that reached its iteration limit or its
 * time limit, an answer a guardrail rejected, and a structured answer that did not fit.
 */
public class AgentException extends ShellyException {
    private static final long serialVersionUID = 1L;

    /** The name of the agent that failed. */
    private final String agent;

    /**
     * Creates the exception.
     *
     * @param agent the failing agent's name
     * @param message what went wrong, naming the agent
     * @param cause the underlying failure, or null
     */
    public AgentException(String agent, String message, Throwable cause) {
        super(message, cause);
        this.agent = agent;
    }

    /**
     * The failing agent's name.
     *
     * @return the name
     */
    public String agent() {
        return agent;
    }

    /**
     * An agent used up its iterations (model calls) without giving a final answer. Every tool call
     * it made was answered before this was thrown.
     */
    public static final class MaxIterationsException extends AgentException {
        private static final long serialVersionUID = 1L;

        /** The number of model turns the agent was allowed. */
        private final int limit;

        /**
         * Creates the exception.
         *
         * @param agent the agent's name
         * @param limit its iteration limit
         */
        public MaxIterationsException(String agent, int limit) {
            super(agent, "agent '" + agent + "' reached its limit of " + limit + " iteration" + (limit == 1 ? "" : "s")
                    + " without a final answer", null);
            this.limit = limit;
        }

        /**
         * The iteration limit that was reached.
         *
         * @return the limit
         */
        public int limit() {
            return limit;
        }
    }

    /** An agent did not finish within its {@linkplain Agent.Builder#timeout time limit}, and was stopped. */
    public static final class AgentTimeoutException extends AgentException {
        private static final long serialVersionUID = 1L;

        /** The time the agent was allowed. */
        private final Duration limit;

        /**
         * Creates the exception.
         *
         * @param agent the agent's name
         * @param limit the time it was allowed
         */
        public AgentTimeoutException(String agent, Duration limit) {
            super(agent, "agent '" + agent + "' did not finish within " + describe(limit) + " and was stopped", null);
            this.limit = limit;
        }

        /**
         * The time the agent was allowed.
         *
         * @return the limit
         */
        public Duration limit() {
            return limit;
        }

        static String describe(Duration d) {
            return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
        }
    }

    /**
     * An {@linkplain RunInterceptor#outputGuardrail output guardrail} rejected an agent's final message. The
     * message stays in the agent's chat; {@link #rejected()} returns it.
     */
    public static final class GuardrailException extends AgentException {
        private static final long serialVersionUID = 1L;

        private final transient Message rejected;
        /** Why the guardrail rejected the message. */
        private final String reason;

        /**
         * Creates the exception.
         *
         * @param agent the agent's name
         * @param reason why the message was rejected
         * @param rejected the rejected message
         * @param cause the failure of the check itself, or null when the check rejected the message
         */
        public GuardrailException(String agent, String reason, Message rejected, Throwable cause) {
            super(agent, "the output guardrail rejected the final message of agent '" + agent + "': " + reason, cause);
            this.reason = reason;
            this.rejected = rejected;
        }

        /**
         * Why the message was rejected.
         *
         * @return the reason
         */
        public String reason() {
            return reason;
        }

        /**
         * The rejected message.
         *
         * @return the message
         */
        public Message rejected() {
            return rejected;
        }
    }

    /**
     * An agent's answer did not fit the record type a structured run asked for, after the one
     * corrective turn (or without one, when the model refused or was cut off). The message names the
     * agent, the type and the problems, and quotes the start of the answer.
     */
    public static final class StructuredOutputException extends AgentException {
        private static final long serialVersionUID = 1L;
        private static final int SHOWN = 200;

        private final transient Class<?> type;
        /** The last answer's full text. */
        private final String answer;
        /** What did not fit, each problem naming the field. */
        private final List<String> problems;

        /**
         * Creates the exception, with a message such as
         * {@code agent 'a' gave no valid Decision after a corrective turn: $.done is required; its answer was '…'}.
         *
         * @param agent the agent's name
         * @param type the record type asked for
         * @param answer the last answer's text
         * @param problems what did not fit
         * @param corrected whether a corrective turn was tried
         */
        public StructuredOutputException(String agent, Class<?> type, String answer, List<String> problems,
                                         boolean corrected) {
            super(agent, "agent '" + agent + "' gave no valid " + type.getSimpleName()
                    + (corrected ? " after a corrective turn: " : ": ") + String.join("; ", problems)
                    + "; its answer was '" + abbreviate(answer) + "'", null);
            this.type = type;
            this.answer = answer == null ? "" : answer;
            this.problems = List.copyOf(problems);
        }

        /**
         * The record type the run asked for.
         *
         * @return the type
         */
        public Class<?> type() {
            return type;
        }

        /**
         * The last answer's full text.
         *
         * @return the answer
         */
        public String answer() {
            return answer;
        }

        /**
         * What did not fit.
         *
         * @return the problems, each naming the field
         */
        public List<String> problems() {
            return problems;
        }

        private static String abbreviate(String text) {
            if (text == null) {
                return "";
            }
            return text.length() <= SHOWN ? text : text.substring(0, SHOWN) + "…";
        }
    }
}
