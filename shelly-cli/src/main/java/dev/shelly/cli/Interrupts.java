package dev.shelly.cli;

/**
 * How Ctrl-C reaches the command. While a trap is set, Ctrl-C runs its action (cancelling the
 * running turn) instead of ending the program; outside a trap it ends the program as usual.
 */
interface Interrupts {
    /** Ctrl-C is never trapped: for input that is not a terminal's. */
    Interrupts NONE = action -> () -> {};

    /**
     * Runs an action on Ctrl-C until the returned trap is closed.
     *
     * @param action what Ctrl-C does meanwhile; it runs on another thread
     * @return the trap; closing it gives Ctrl-C back its usual meaning
     */
    Trap trap(Runnable action);

    /** A set trap. */
    interface Trap extends AutoCloseable {
        @Override
        void close();
    }
}
