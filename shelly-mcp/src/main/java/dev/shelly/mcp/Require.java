package dev.shelly.mcp;

import java.time.Duration;

/** The argument checks of the public builders, each failing with an IllegalArgumentException that names the argument. */
final class Require {
    private Require() {}

    /** The value; {@code what + " must not be null"} when it is null. */
    static <T> T notNull(T value, String what) {
        if (value == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        return value;
    }

    /** The text; {@code what + " must not be null or blank"} when it is. */
    static String notBlank(String text, String what) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException(what + " must not be null or blank");
        }
        return text;
    }

    /** The duration; refused when null, zero or negative. */
    static Duration positive(Duration d, String what) {
        notNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, was " + d);
        }
        return d;
    }
}
