package dev.shelly.mcp;

import dev.shelly.tools.ToolContext;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A server's request for input from the user ({@code elicitation/create}, form mode): what to
 * ask and the JSON schema of the answer, an object of primitive properties.
 *
 * @param server the name of the server that asks
 * @param message what to ask
 * @param requestedSchema the schema of the answer, its properties in the server's order
 * @param caller the context of the tool call the server was serving when it asked (the latest
 *     one in flight: its agent, run and run values, where a handler finds the run's approvals),
 *     or null when no call was in flight
 */
public record McpElicitation(String server, String message, Map<String, Object> requestedSchema, ToolContext caller) {

    /** Checks the fields and copies the schema. */
    public McpElicitation {
        if (server == null) {
            throw new IllegalArgumentException("McpElicitation.server must not be null");
        }
        if (message == null) {
            throw new IllegalArgumentException("McpElicitation.message must not be null");
        }
        if (requestedSchema == null) {
            throw new IllegalArgumentException("McpElicitation.requestedSchema must not be null");
        }
        requestedSchema = Collections.unmodifiableMap(new LinkedHashMap<>(requestedSchema));
    }

    /**
     * What is wrong with an answer to this request: its values, completed with the schema's
     * defaults as the client sends them, checked against the requested schema (required
     * properties, types, enumerated values and titled options). An {@link McpToolClient} sends
     * an accepted answer that does not fit back to the server as an error; a handler that asks a
     * person can check first and ask again.
     *
     * @param content the values, by property name
     * @return what is wrong, for the person to read; empty when the answer fits
     */
    public Optional<String> check(Map<String, Object> content) {
        if (content == null) {
            throw new IllegalArgumentException("McpElicitation.check content must not be null");
        }
        return Optional.ofNullable(ElicitationCheck.problem(requestedSchema, ClientRequests.withDefaults(requestedSchema, content)));
    }

    /**
     * What the user answered.
     *
     * @param action whether they accepted, declined or cancelled
     * @param content the values they gave when they accepted; empty otherwise
     */
    public record Answer(Action action, Map<String, Object> content) {
        /** Checks the action and copies the content. */
        public Answer {
            if (action == null) {
                throw new IllegalArgumentException("McpElicitation.Answer.action must not be null");
            }
            content = content == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(content));
        }

        /**
         * The user accepted with these values.
         *
         * @param content the values, by property name
         * @return the answer
         */
        public static Answer accept(Map<String, Object> content) {
            if (content == null) {
                throw new IllegalArgumentException("McpElicitation.Answer.accept content must not be null; give Map.of() for none");
            }
            return new Answer(Action.ACCEPT, content);
        }

        /**
         * The user declined.
         *
         * @return the answer
         */
        public static Answer decline() {
            return new Answer(Action.DECLINE, Map.of());
        }
    }

    /** A user's answer to an elicitation. */
    public enum Action {
        /** The user gave the values. */
        ACCEPT,
        /** The user said no. */
        DECLINE,
        /** The user dismissed the question without a choice. */
        CANCEL
    }

    /** Asks the user; an {@link McpToolClient} calls it on a thread of its own, which it may block. */
    @FunctionalInterface
    public interface Handler {
        /**
         * Asks the user.
         *
         * @param request what to ask
         * @return the answer; on accept, values that fit the schema (omitted properties get their defaults)
         * @throws InterruptedException when the asking thread is interrupted
         */
        Answer answer(McpElicitation request) throws InterruptedException;
    }
}
