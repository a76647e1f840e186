package dev.shelly.state.tasks;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that starts at 2026-01-01T00:00:00Z and moves one second on with every reading. Each
 * reading also yields the thread: the board reads the clock between reading a task and writing it
 * back, so contention tests get a wide window in which a lost update would show.
 */
public final class TickingClock extends Clock {
    public static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    /** A lease no test on this clock outlives: a second a reading would lapse a 30 s lease within a test. */
    public static final Duration LEASE = Duration.ofDays(3650);
    private final AtomicLong readings = new AtomicLong();

    @Override
    public Instant instant() {
        Thread.yield();
        return START.plusSeconds(readings.getAndIncrement());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new IllegalArgumentException("TickingClock stays in UTC");
    }

    /** The instant of the n-th reading, from 0. */
    public static Instant at(int n) {
        return START.plusSeconds(n);
    }
}
