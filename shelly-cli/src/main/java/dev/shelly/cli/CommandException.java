package dev.shelly.cli;

import java.io.Serial;

/**
 * A command cannot go on: the message is the one line the person reads, and the exit status
 * says whether they asked wrongly ({@link #USAGE}) or something failed ({@link #FAILED}).
 */
final class CommandException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The status of a failure. */
    static final int FAILED = 1;
    /** The status of a command line that cannot be understood. */
    static final int USAGE = 2;

    private final int status;

    private CommandException(String message, int status) {
        super(message);
        this.status = status;
    }

    /** The command line is wrong; the message says how, and where to read how it goes. */
    static CommandException usage(String message) {
        return new CommandException(message, USAGE);
    }

    /** The command failed; the message says why and, where there is one, what to do. */
    static CommandException failed(String message) {
        return new CommandException(message, FAILED);
    }

    int status() {
        return status;
    }
}
