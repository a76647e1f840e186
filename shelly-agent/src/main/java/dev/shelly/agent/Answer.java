package dev.shelly.agent;

/**
 * A person's answer to a {@link PendingCall}, given through {@link Approvals#answer}.
 *
 * <ul>
 *   <li>{@link Approve}: the call runs as the model made it.
 *   <li>{@link Deny}: the call does not run; the model reads
 *       {@code tool 'x' was not run: <reason>}.
 *   <li>{@link Edit}: the call runs with other arguments (the chat keeps the model's call).
 *   <li>{@link Reply}: the answer to an {@link AskUser#NAME} question.
 * </ul>
 *
 * <p>Approve and deny may be remembered beyond the one call: for the rest of the session
 * ({@link Scope#SESSION}) or for the project ({@link Scope#PROJECT}, kept by the
 * {@link PermissionStore}); the call's agent then runs (or never runs) that tool again without
 * asking.
 */
public sealed interface Answer {

    /** How long an approval or denial holds. */
    enum Scope {
        /** This call only. */
        ONCE,
        /** Every call of the same tool by the same agent in this session. */
        SESSION,
        /** Every call of the same tool by the same agent in this project, in any session. */
        PROJECT
    }

    /**
     * Run the call.
     *
     * @param scope how long the approval holds
     */
    record Approve(Scope scope) implements Answer {
        /** Validates the scope. */
        public Approve {
            if (scope == null) {
                throw new IllegalArgumentException("Answer.approve scope must not be null");
            }
        }
    }

    /**
     * Do not run the call.
     *
     * @param reason why, for the model to read; not blank
     * @param scope how long the denial holds
     */
    record Deny(String reason, Scope scope) implements Answer {
        /** Validates the fields. */
        public Deny {
            if (reason == null || reason.isBlank()) {
                throw new IllegalArgumentException("Answer.deny reason must not be null or blank");
            }
            if (scope == null) {
                throw new IllegalArgumentException("Answer.deny scope must not be null");
            }
        }
    }

    /**
     * Run the call with other arguments, this once.
     *
     * @param arguments the arguments: the text of a JSON object
     */
    record Edit(String arguments) implements Answer {
        /** Validates the arguments. */
        public Edit {
            new ToolDecision.Rewrite(arguments);
        }
    }

    /**
     * The answer to a question the model asked with {@link AskUser#NAME}.
     *
     * @param text the answer; not null
     */
    record Reply(String text) implements Answer {
        /** Validates the text. */
        public Reply {
            if (text == null) {
                throw new IllegalArgumentException("Answer.reply text must not be null");
            }
        }
    }

    /**
     * Approves the call, this once.
     *
     * @return the answer
     */
    static Answer approve() {
        return new Approve(Scope.ONCE);
    }

    /**
     * Approves the call and every later call of the same tool by the same agent in the scope.
     *
     * @param scope {@link Scope#SESSION} or {@link Scope#PROJECT}
     * @return the answer
     */
    static Answer approveAlways(Scope scope) {
        return new Approve(scope);
    }

    /**
     * Denies the call, this once.
     *
     * @param reason why, for the model to read
     * @return the answer
     */
    static Answer deny(String reason) {
        return new Deny(reason, Scope.ONCE);
    }

    /**
     * Denies the call and every later call of the same tool by the same agent in the scope.
     *
     * @param reason why, for the model to read
     * @param scope {@link Scope#SESSION} or {@link Scope#PROJECT}
     * @return the answer
     */
    static Answer denyAlways(String reason, Scope scope) {
        return new Deny(reason, scope);
    }

    /**
     * Runs the call with other arguments.
     *
     * @param arguments the text of a JSON object
     * @return the answer
     */
    static Answer edit(String arguments) {
        return new Edit(arguments);
    }

    /**
     * Answers a question.
     *
     * @param text the answer
     * @return the answer
     */
    static Answer reply(String text) {
        return new Reply(text);
    }
}
