package dev.shelly.cli;

/**
 * The jar's entry point, compiled for Java 11: on Java 21 or newer it hands over to
 * {@link Main}; an older {@code java} gets one line saying what is needed, instead of an
 * {@code UnsupportedClassVersionError} (every other class of the jar is compiled for 21).
 */
public final class Launcher {
    private Launcher() {}

    /**
     * Runs the command on a JVM that can.
     *
     * @param args the command line, passed on unchanged
     */
    public static void main(String[] args) {
        int feature = Runtime.version().feature();
        if (feature < 21) {
            System.err.println("error: shelly needs Java 21 or newer, but runs on Java " + feature + " ("
                    + System.getProperty("java.home") + "); set JAVA_HOME to a JDK 21 or newer, or put its java first"
                    + " on the PATH");
            System.exit(1);
        }
        Main.main(args);
    }
}
