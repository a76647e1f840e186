package dev.shelly.benchmarks;

import dev.shelly.agent.Agent;
import dev.shelly.agent.Registry;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;

/**
 * Many concurrent agents in one JVM, each with one model call that waits 100 ms on its virtual
 * thread: the wall time against the 100 ms floor, the process CPU time per agent, and the heap
 * each agent holds while its model call waits. A program rather than a JMH benchmark: one round
 * of 100,000 agents is one measurement, and the heap is read between the start and the end of a
 * round.
 *
 * <ul>
 *   <li>{@code plain N}: N fresh worker agents, each {@code run} on its own virtual thread with
 *       the same two user messages, joined.
 *   <li>{@code delegate N}: one lead whose model makes one {@code delegate} call with N tasks (one
 *       fresh worker per task, on its own virtual thread), then answers. Also prints how long after
 *       the round's start the first child began (median): the lead's serial part, its model call
 *       and the reading and checking of the N tasks, since the model's N-task JSON is part of the
 *       work and no child may start before every task is checked.
 *   <li>{@code delegate-1000 N}: N / 1,000 leads at once, each on its own virtual thread, each
 *       making one {@code delegate} call with 1,000 tasks (the largest fan-out a model can
 *       realistically send): N children in all, as in {@code delegate N}, without one call's
 *       N-task input and one thread starting every child.
 *   <li>{@code heap-plain N} and {@code heap-delegate N}: the same, with a model that blocks on a
 *       gate; the used heap after full GCs is read before the agents start and once all N wait in
 *       their model, and the difference over N is printed as the heap per waiting agent.
 * </ul>
 *
 * <p>Each timed mode runs warm-up rounds, then measured rounds, and prints each round and the
 * median: wall time, its ratio to the floor, and process CPU time (every thread of the JVM:
 * carriers, JIT, GC) per agent. Run with the 2 GB heap the target names:
 * {@code java -Xms2g -Xmx2g -XX:+AlwaysPreTouch -cp benchmarks/target/benchmarks.jar
 * dev.shelly.benchmarks.FanOutScale plain 100000 [warm-up rounds] [rounds]}.
 */
public final class FanOutScale {
    private static final long FLOOR_MILLIS = 100;
    /** The tasks of each lead's delegate call in {@code delegate-1000}. */
    private static final int BATCH = 1_000;
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private FanOutScale() {}

    /**
     * Runs one mode.
     *
     * @param args the mode ({@code plain}, {@code delegate}, {@code delegate-1000}, {@code heap-plain}
     *     or {@code heap-delegate}), the number of agents (default 100000), the warm-up rounds
     *     (default 5) and the measured rounds (default 7)
     * @throws Exception when a run fails
     */
    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "plain";
        int agents = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        int warmUps = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 7;
        switch (mode) {
            case "plain", "delegate", "delegate-1000" -> timed(mode, agents, warmUps, rounds);
            case "heap-plain", "heap-delegate" -> heap(mode, agents, warmUps, rounds);
            default -> throw new IllegalArgumentException(
                    "mode must be plain, delegate, delegate-1000, heap-plain or heap-delegate, was " + mode);
        }
    }

    /** A fresh worker, as the registry of the delegating lead makes one. */
    private static Agent worker(Completer model) {
        return Agent.builder("worker").description("Works on one part of a task")
                .instructions("Do the part you are given.").completer(model).build();
    }

    private static Registry registry(Completer model) {
        return new Registry().register("worker", "Works on one part of a task", () -> worker(model));
    }

    /** When the first child of the round was spawned ({@link System#nanoTime()}), or 0 before. */
    private static volatile long firstSpawn;

    /** A registry whose factory notes when the round's first child is spawned (a read, then one write). */
    private static Registry stampingRegistry(Completer model) {
        return new Registry().register("worker", "Works on one part of a task", () -> {
            if (firstSpawn == 0) {
                firstSpawn = System.nanoTime();
            }
            return worker(model);
        });
    }

    private static void timed(String mode, int agents, int warmUps, int rounds) throws InterruptedException {
        Completer model = new WaitingCompleter(Duration.ofMillis(FLOOR_MILLIS));
        Registry registry = stampingRegistry(model);
        if (mode.equals("delegate-1000") && agents % BATCH != 0) {
            throw new IllegalArgumentException("delegate-1000 needs a multiple of " + BATCH + " agents, was " + agents);
        }
        DelegatingCompleter lead = new DelegatingCompleter(mode.equals("delegate-1000") ? BATCH : agents);
        long[] wall = new long[rounds];
        long[] cpu = new long[rounds];
        long[] first = new long[rounds];
        for (int r = -warmUps; r < rounds; r++) {
            System.gc();
            firstSpawn = 0;
            long cpu0 = OS.getProcessCpuTime();
            long t0 = System.nanoTime();
            switch (mode) {
                case "plain" -> plain(agents, model);
                case "delegate" -> delegate(lead, registry);
                default -> delegateInBatches(agents / BATCH, lead, registry);
            }
            long took = System.nanoTime() - t0;
            long used = OS.getProcessCpuTime() - cpu0;
            if (r >= 0) {
                wall[r] = took;
                cpu[r] = used;
                first[r] = firstSpawn - t0;
                System.out.printf(Locale.ROOT, "%s %,d agents, round %d: %s%n", mode, agents, r + 1,
                        figures(took, used, agents));
            }
        }
        Arrays.sort(wall);
        Arrays.sort(cpu);
        System.out.printf(Locale.ROOT, "%s %,d agents, median of %d: %s%n", mode, agents, rounds,
                figures(wall[rounds / 2], cpu[rounds / 2], agents));
        if (mode.equals("delegate")) {
            Arrays.sort(first);
            System.out.printf(Locale.ROOT, "the first child began %.2f ms after the start (median of %d): the lead's "
                    + "model call, then reading and checking its %,d tasks (%,d characters)%n", first[rounds / 2] / 1e6,
                    rounds, agents, lead.arguments().length());
        }
    }

    private static String figures(long wallNanos, long cpuNanos, int agents) {
        return String.format(Locale.ROOT, "%.1f ms wall (%.2fx the %d ms floor), %.1f ms CPU, %.2f µs CPU per agent",
                wallNanos / 1e6, wallNanos / 1e6 / FLOOR_MILLIS, FLOOR_MILLIS, cpuNanos / 1e6,
                cpuNanos / 1e3 / agents);
    }

    /** N fresh workers, each run on its own virtual thread, joined. */
    private static void plain(int agents, Completer model) throws InterruptedException {
        Thread[] threads = new Thread[agents];
        Message[] answers = new Message[agents];
        for (int i = 0; i < agents; i++) {
            int index = i;
            threads[i] = Thread.ofVirtual().start(() -> answers[index] = worker(model).run(List.of(
                    Message.text("lead", Role.USER, "The parts are independent."),
                    Message.text("lead", Role.USER, "Work on part " + index))));
        }
        for (Thread t : threads) {
            t.join();
        }
        for (int i = 0; i < agents; i++) {
            if (answers[i] == null) {
                throw new IllegalStateException("plain run " + i + " gave no answer");
            }
        }
    }

    /** One lead, one delegate call to every worker. */
    private static void delegate(DelegatingCompleter lead, Registry registry) {
        Agent agent = Agent.builder("lead").completer(lead).registry(registry).maxDelegationDepth(1).build();
        agent.run("Split the work.");
        DelegatingCompleter.check(agent.chat());
    }

    /** Many leads at once, each on its own virtual thread, each delegating one batch of tasks. */
    private static void delegateInBatches(int leads, DelegatingCompleter lead, Registry registry)
            throws InterruptedException {
        Thread[] threads = new Thread[leads];
        RuntimeException[] failures = new RuntimeException[leads];
        for (int i = 0; i < leads; i++) {
            int index = i;
            threads[i] = Thread.ofVirtual().start(() -> {
                try {
                    delegate(lead, registry);
                } catch (RuntimeException e) {
                    failures[index] = e;
                }
            });
        }
        for (Thread t : threads) {
            t.join();
        }
        for (RuntimeException e : failures) {
            if (e != null) {
                throw e;
            }
        }
    }

    private static void heap(String mode, int agents, int warmUps, int rounds) throws Exception {
        long[] perAgent = new long[rounds];
        for (int r = -warmUps; r < rounds; r++) {
            long bytes = waitingHeap(mode.equals("heap-plain"), agents);
            if (r >= 0) {
                perAgent[r] = bytes;
                System.out.printf(Locale.ROOT, "%s %,d agents, round %d: %,d bytes per waiting agent%n", mode, agents,
                        r + 1, bytes);
            }
        }
        Arrays.sort(perAgent);
        System.out.printf(Locale.ROOT, "%s %,d agents, median of %d: %,d bytes per waiting agent%n", mode, agents,
                rounds, perAgent[rounds / 2]);
    }

    /** The used heap while N agents wait in their model, minus before they started, over N. */
    private static long waitingHeap(boolean plain, int agents) throws Exception {
        CountDownLatch waiting = new CountDownLatch(agents);
        CountDownLatch gate = new CountDownLatch(1);
        ModelResponse answer = ModelResponse.of(Message.text("model", Role.ASSISTANT, "part done"));
        Completer gated = (ModelRequest request) -> {
            waiting.countDown();
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CancellationException("interrupted");
            }
            return answer;
        };
        Registry registry = registry(gated);
        DelegatingCompleter leadModel = new DelegatingCompleter(agents);
        Agent lead = Agent.builder("lead").completer(leadModel).registry(registry).maxDelegationDepth(1).build();
        Thread[] threads = new Thread[plain ? agents : 1];
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long before = usedAfterGc(memory);
        if (plain) {
            for (int i = 0; i < agents; i++) {
                int index = i;
                threads[i] = Thread.ofVirtual().start(() -> worker(gated).run(List.of(
                        Message.text("lead", Role.USER, "The parts are independent."),
                        Message.text("lead", Role.USER, "Work on part " + index))));
            }
        } else {
            threads[0] = Thread.ofPlatform().start(() -> lead.run("Split the work."));
        }
        waiting.await();
        long during = usedAfterGc(memory);
        gate.countDown();
        for (Thread t : threads) {
            t.join();
        }
        if (!plain) {
            DelegatingCompleter.check(lead.chat());
        }
        return (during - before) / agents;
    }

    private static long usedAfterGc(MemoryMXBean memory) {
        System.gc();
        System.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }
}
