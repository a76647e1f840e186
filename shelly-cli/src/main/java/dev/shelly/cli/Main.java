package dev.shelly.cli;

import java.util.function.UnaryOperator;

/**
 * The {@code shelly} command: {@code shelly [--root DIR] <command> [options]}; see
 * {@code shelly --help}. Exits with 0 when the command did what it was asked, 1 when it failed,
 * 2 for a usage error, and {@code shelly run} with 3 when its turn waits for an approval.
 */
public final class Main {
    private Main() {}

    /**
     * Runs one command on the process's standard streams and environment, and exits with its
     * status.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        Terminal terminal = Terminal.system();
        if (Cli.debug(terminal.env())) {
            // Read by slf4j-simple when the first logger is made, which has not happened yet.
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "debug");
        }
        int status = new Cli(terminal, UnaryOperator.identity()).run(args);
        terminal.out().flush();
        System.exit(status);
    }
}
