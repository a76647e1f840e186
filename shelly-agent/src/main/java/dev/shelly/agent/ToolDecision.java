package dev.shelly.agent;

/**
 * What a link of the interception chain decides about a tool call before it runs
 * ({@link RunInterceptor#decideToolCall}, {@link RunInterceptor#beforeToolCall}).
 *
 * <ul>
 *   <li>{@link #ALLOW}: the call runs (the later links still decide).
 *   <li>{@link #deny}: the call does not run; the model reads
 *       {@code tool 'x' was not run: <reason>} as its result.
 *   <li>{@link #rewrite}: the call runs with other arguments; the chat keeps the model's original
 *       call.
 *   <li>{@link #pause}: no call of the turn runs; the run stops with a
 *       {@link RunPausedException}, and the next run on the chat executes the calls first.
 * </ul>
 */
public sealed interface ToolDecision {

    /** The call may run. */
    record Allow() implements ToolDecision {}

    /**
     * The call must not run.
     *
     * @param reason why, for the model to read; not blank
     */
    record Deny(String reason) implements ToolDecision {
        /** Validates the reason. */
        public Deny {
            if (reason == null || reason.isBlank()) {
                throw new IllegalArgumentException("ToolDecision.deny reason must not be null or blank");
            }
        }
    }

    /**
     * The call runs with other arguments.
     *
     * @param arguments the new arguments: the text of a JSON object
     */
    record Rewrite(String arguments) implements ToolDecision {
        /** Validates the arguments. */
        public Rewrite {
            if (arguments == null || !arguments.strip().startsWith("{") || !arguments.strip().endsWith("}")) {
                throw new IllegalArgumentException("ToolDecision.rewrite arguments must be the text of a JSON object, was "
                        + (arguments == null ? "null" : "'" + abbreviate(arguments) + "'"));
            }
        }

        private static String abbreviate(String s) {
            return s.length() <= 80 ? s : s.substring(0, 80) + "...";
        }
    }

    /**
     * The run stops before any call of the turn runs, for a decision outside it.
     *
     * @param reason why; not blank
     */
    record Pause(String reason) implements ToolDecision {
        /** Validates the reason. */
        public Pause {
            if (reason == null || reason.isBlank()) {
                throw new IllegalArgumentException("ToolDecision.pause reason must not be null or blank");
            }
        }
    }

    /** The call may run. */
    ToolDecision ALLOW = new Allow();

    /**
     * Refuses the call.
     *
     * @param reason why, for the model to read; not blank
     * @return the decision
     */
    static ToolDecision deny(String reason) {
        return new Deny(reason);
    }

    /**
     * Runs the call with other arguments.
     *
     * @param json the new arguments: the text of a JSON object
     * @return the decision
     */
    static ToolDecision rewrite(String json) {
        return new Rewrite(json);
    }

    /**
     * Pauses the run before the turn's calls run.
     *
     * @param reason why; not blank
     * @return the decision
     */
    static ToolDecision pause(String reason) {
        return new Pause(reason);
    }
}
