package dev.shelly.coding;

/**
 * A coding tool refused a call: a path outside the workspace or sensitive, a command the rules
 * do not allow. The message says why; the toolbox turns it into an error result the model reads.
 */
public final class RefusedException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /**
     * A refusal.
     *
     * @param message why the call was refused
     */
    public RefusedException(String message) {
        super(Checks.notNull(message, "RefusedException message"));
    }
}
