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
}
