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
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;

/**
 * Measures the heap each delegated child holds while it waits for its model.
 *
 * <p>Method: the children's model blocks on a gate. With the heap collected (two full GCs), the
 * used heap is read before the lead starts and again once every child is waiting in its model;
 * the difference divided by the number of children is the retained heap per waiting child: its
 * agent, chat and messages, its parked virtual thread and stack, and the lead's bookkeeping for
 * its task. Then the gate opens and the run finishes. Warm-up rounds first; the median of the
 * measured rounds is printed.
 *
 * <p>Run: {@code java -Xms4g -Xmx4g -cp benchmarks/target/benchmarks.jar dev.shelly.benchmarks.HeapPerWaitingChild [children] [rounds]}
 */
public final class HeapPerWaitingChild {
    private HeapPerWaitingChild() {}

    /**
     * Runs the measurement.
     *
     * @param args the number of children (default 10000) and of measured rounds (default 5)
     * @throws Exception when the run fails
     */
    public static void main(String[] args) throws Exception {
        int children = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        for (int i = 0; i < 3; i++) {
            measure(children);
        }
        List<Long> perChild = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            long bytes = measure(children);
            perChild.add(bytes);
            System.out.printf("round %d: %,d bytes per waiting child%n", i + 1, bytes);
        }
        Collections.sort(perChild);
        System.out.printf("median: %,d bytes per waiting child (%d children, %d rounds)%n",
                perChild.get(perChild.size() / 2), children, rounds);
    }

    private static long measure(int children) throws Exception {
        CountDownLatch waiting = new CountDownLatch(children);
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
        Registry registry = new Registry().register("worker", "Works on one part of a task",
                () -> Agent.builder("worker").description("Works on one part of a task")
                        .instructions("Do the part you are given.").completer(gated).build());
        DelegatingCompleter leadModel = new DelegatingCompleter(children);
        Agent lead = Agent.builder("lead").completer(leadModel).registry(registry).maxDelegationDepth(1).build();

        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long before = usedAfterGc(memory);
        Thread run = Thread.ofPlatform().start(() -> lead.run("Split the work."));
        waiting.await();
        long during = usedAfterGc(memory);
        gate.countDown();
        run.join();
        DelegatingCompleter.check(lead.chat());
        return (during - before) / children;
    }

    private static long usedAfterGc(MemoryMXBean memory) {
        System.gc();
        System.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }
}
