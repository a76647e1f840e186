package dev.shelly.examples;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The jar's entry point, compiled for Java 11 so that an older {@code java} on the PATH gets a
 * clear answer instead of an {@code UnsupportedClassVersionError}: on Java 21 or newer it runs
 * {@link Main}; on an older one it starts the jar again with {@code $JAVA_HOME/bin/java} when
 * that is another installation (the Maven build needed a JDK 21 there), and otherwise says in
 * one line what is needed and exits with 2.
 */
public final class Launcher {
    /** Marks a JVM started by this launcher, so it never starts another. */
    static final String RELAUNCHED = "shelly.examples.relaunched";
    /** Named as text: loading the class on an old JVM is exactly what must not happen. */
    private static final String MAIN = "dev.shelly.examples.Main";

    private Launcher() {}

    /**
     * Runs the examples on a JVM that can.
     *
     * @param args the command line, passed on unchanged
     * @throws IOException when the other JVM cannot be started
     * @throws InterruptedException when interrupted while waiting for it
     */
    public static void main(String[] args) throws IOException, InterruptedException {
        int version = Runtime.version().feature();
        if (version >= 21) {
            Main.main(args);
            return;
        }
        Path java = javaOfJavaHome();
        if (java != null && System.getProperty(RELAUNCHED) == null) {
            List<String> command = new ArrayList<>(List.of(java.toString(), "-D" + RELAUNCHED + "=true",
                    "-cp", System.getProperty("java.class.path"), MAIN));
            command.addAll(Arrays.asList(args));
            System.exit(new ProcessBuilder(command).inheritIO().start().waitFor());
        }
        System.err.println("error: the Shelly examples need Java 21 or newer, but this is Java " + version + " ("
                + System.getProperty("java.home") + "); run the jar with the java of a JDK 21 or newer, or set "
                + "JAVA_HOME to one");
        System.exit(2);   // Main.USAGE, not read from Main on a JVM that cannot load it
    }

    /** The java launcher of JAVA_HOME, when it is set and is not the running one. */
    private static Path javaOfJavaHome() throws IOException {
        String home = System.getenv("JAVA_HOME");
        if (home == null || home.isBlank()) {
            return null;
        }
        Path java = Path.of(home.strip(), "bin", File.separatorChar == '\\' ? "java.exe" : "java");
        if (!Files.isExecutable(java)) {
            return null;
        }
        Path running = Path.of(System.getProperty("java.home"));
        return Files.isSameFile(Path.of(home.strip()), running) ? null : java;
    }
}
