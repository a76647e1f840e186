package dev.shelly.agent;

import java.time.Duration;

/** Duration arithmetic that never overflows. */
final class Durations {
    private Durations() {}

    static long nanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException overflow) {
            return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }
}
