package dev.shelly.coding;

/** Argument checks shared by the public entry points. */
final class Checks {
    private Checks() {}

    static <T> T notNull(T value, String what) {
        if (value == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        return value;
    }

    /** A program name without a directory, for a setting of {@code CodingTools.Builder}. */
    static String programName(String program, String where) {
        if (program == null || program.isBlank() || program.indexOf('/') >= 0 || program.indexOf('\\') >= 0) {
            throw new IllegalArgumentException("CodingTools.Builder." + where + ": '" + program
                    + "' must be a program name without a directory");
        }
        return program.strip();
    }

    /** A number of at least {@code min}, for a setting of {@code CodingTools.Builder}. */
    static int atLeast(int value, int min, String what) {
        if (value < min) {
            throw new IllegalArgumentException("CodingTools.Builder." + what + " must be at least " + min + ", got "
                    + value);
        }
        return value;
    }
}
