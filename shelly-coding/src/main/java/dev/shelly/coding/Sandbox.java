package dev.shelly.coding;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * SPI: confines the programs the coding tools run ({@value CodingTools#RUN} and the git tools).
 * A sandbox turns one command into the argument vector that starts it confined: the workspace
 * the only writable place, the hidden paths not visible, no network unless allowed, no view of
 * the JVM's processes, and exactly the environment given.
 *
 * <p>{@link #bubblewrap()} is the default on Linux and the one this project tests; another
 * mechanism (macOS Seatbelt, a container) plugs in by implementing {@link #command}. Running
 * without confinement is an explicit choice, {@link #NONE}, never a fallback.
 *
 * <p>Implementations are immutable and safe for use by many threads.
 */
public interface Sandbox {

    /**
     * No confinement: commands run as the JVM's own children, with the built environment but
     * the JVM's view of the file system, network and processes. Only for a model you trust as
     * you trust yourself; a toolbox using it logs a WARN once.
     */
    Sandbox NONE = new NoSandbox();

    /**
     * What one command needs from the sandbox.
     *
     * @param workspace the workspace root (a real path): the working directory and the only
     *     writable place besides a private temporary directory
     * @param command the program (an absolute path) and its arguments
     * @param environment the command's whole environment; nothing else is inherited
     * @param network whether the command may reach the network
     * @param hidden paths outside the workspace that must not be visible at all (home
     *     directories, the JVM's working directory, configured paths); missing ones are skipped
     * @param readOnly paths inside the workspace the command may read but not change
     * @param masked paths inside the workspace the command must not read (sensitive files and
     *     folders): they appear empty and cannot be changed
     */
    record Launch(Path workspace, List<String> command, Map<String, String> environment, boolean network,
            List<Path> hidden, List<Path> readOnly, List<Path> masked) {

        /** Copies the lists and the map. */
        public Launch {
            Checks.notNull(workspace, "Sandbox.Launch workspace");
            command = List.copyOf(Checks.notNull(command, "Sandbox.Launch command"));
            environment = Map.copyOf(Checks.notNull(environment, "Sandbox.Launch environment"));
            hidden = List.copyOf(Checks.notNull(hidden, "Sandbox.Launch hidden"));
            readOnly = List.copyOf(Checks.notNull(readOnly, "Sandbox.Launch readOnly"));
            masked = List.copyOf(Checks.notNull(masked, "Sandbox.Launch masked"));
            if (command.isEmpty()) {
                throw new IllegalArgumentException("Sandbox.Launch command must not be empty");
            }
        }
    }

    /**
     * The sandbox's name, as configuration spells it ({@code bubblewrap}, {@code none}).
     *
     * @return the name
     */
    String name();

    /**
     * Whether commands are confined; false only for {@link #NONE}.
     *
     * @return true when confined
     */
    default boolean confines() {
        return true;
    }

    /**
     * Checks that the sandbox can start here (its program exists and a confined {@code true}
     * runs). Called before every command; implementations remember a success.
     *
     * @throws IllegalStateException saying what is missing and how to install it
     */
    void verify();

    /**
     * The argument vector that runs a command confined. The caller starts it with exactly
     * {@link Launch#environment()} as the started process's environment, its working directory
     * the workspace, and kills it (and with it everything inside) on timeout.
     *
     * @param launch the command and what it may see
     * @return the argument vector to start
     */
    List<String> command(Launch launch);

    /**
     * Bubblewrap ({@code bwrap}, Debian's package {@code bubblewrap}), found in {@code /usr/bin}
     * or {@code /bin}.
     *
     * @return the sandbox
     */
    static Sandbox bubblewrap() {
        return Bubblewrap.installed();
    }

    /**
     * Bubblewrap at a given path.
     *
     * @param executable the {@code bwrap} program
     * @return the sandbox
     */
    static Sandbox bubblewrap(Path executable) {
        return new Bubblewrap(Checks.notNull(executable, "Sandbox.bubblewrap executable"));
    }

    /**
     * The default of this platform: {@link #bubblewrap()} on Linux. On other systems no sandbox
     * is built in: the one returned refuses every command, saying to plug one in or to choose
     * {@link #NONE} on purpose.
     *
     * @return the sandbox
     */
    static Sandbox platformDefault() {
        String os = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT);
        return os.contains("linux") ? bubblewrap() : new MissingSandbox(os);
    }
}
