package dev.shelly.cli;

import java.io.IOException;
import java.util.Set;

/** One of the {@code shelly} commands; its help is the resource {@code help/<name>.txt}. */
abstract class Command {
    private final String name;
    /** Where the command reads and writes. */
    final Terminal terminal;

    /**
     * @param name the word that names it: {@code chat}, {@code run}, ...
     * @param terminal where it reads and writes
     */
    Command(String name, Terminal terminal) {
        this.name = name;
        this.terminal = terminal;
    }

    final String name() {
        return name;
    }

    /** The flags it takes besides {@code --help}. */
    Set<String> flags() {
        return Set.of();
    }

    /** The options with a value it takes besides {@code --root}. */
    Set<String> options() {
        return Set.of();
    }

    /**
     * Does what was asked.
     *
     * @param args the command's arguments
     * @param project the project it works on
     * @return the exit status
     * @throws IOException when the terminal cannot be read or written
     */
    abstract int run(Args args, Project project) throws IOException;
}
