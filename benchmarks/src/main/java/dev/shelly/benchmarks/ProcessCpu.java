package dev.shelly.benchmarks;

import java.lang.management.ManagementFactory;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The process CPU time one single-shot invocation took, in milliseconds, as a JMH secondary
 * result ({@code cpuMs}). It counts every thread of the benchmark JVM (the carriers of the
 * virtual threads included, and the JIT and GC threads too), so it compares two methods run the
 * same way rather than giving Shelly's own cost.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.EVENTS)
public class ProcessCpu {
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** CPU milliseconds of the invocations of the current iteration, summed. */
    public double cpuMs;

    private long start;

    /** Clears the counter at the start of each iteration. */
    @Setup(Level.Iteration)
    public void clear() {
        cpuMs = 0;
    }

    /** Reads the process CPU time before an invocation. */
    @Setup(Level.Invocation)
    public void before() {
        start = OS.getProcessCpuTime();
    }

    /** Adds the CPU time the invocation took. */
    @TearDown(Level.Invocation)
    public void after() {
        cpuMs += (OS.getProcessCpuTime() - start) / 1e6;
    }
}
