package dev.shelly.benchmarks;

import dev.shelly.agent.Agent;
import dev.shelly.agent.Registry;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Wall time of one {@code delegate} call fanning out to many children whose model each takes
 * 100 ms: the lead's run from its first model call to its answer. With perfect concurrency and
 * no overhead it would take 100 ms.
 *
 * <p>Each child is a fresh agent from the registry (system prompt, context and task messages,
 * its own virtual thread); the lead parses the tasks and writes the JSON results.
 *
 * <p>{@link #plainRuns} is what the fan-out is compared with: the same number of fresh worker
 * agents, each run on its own virtual thread with the same two input messages and the same
 * model, joined in order, with no lead and no delegation. Both report the process CPU time per
 * run as the secondary result {@code cpuMs} ({@link ProcessCpu}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 10)
@Measurement(iterations = 20)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class DelegateFanOutBenchmark {

    @Param({"10000"})
    int children;

    @Param({"100"})
    int latencyMillis;

    private Registry registry;
    private DelegatingCompleter leadModel;
    private WaitingCompleter workerModel;

    @Setup
    public void setup() {
        workerModel = new WaitingCompleter(Duration.ofMillis(latencyMillis));
        registry = new Registry().register("worker", "Works on one part of a task",
                () -> Agent.builder("worker").description("Works on one part of a task")
                        .instructions("Do the part you are given.").completer(workerModel).build());
        leadModel = new DelegatingCompleter(children);
    }

    /**
     * One delegate call to all children.
     *
     * @param cpu collects the process CPU time
     * @return the lead's answer
     */
    @Benchmark
    public Message fanOut(ProcessCpu cpu) {
        Agent lead = Agent.builder("lead").completer(leadModel).registry(registry).maxDelegationDepth(1).build();
        Message answer = lead.run("Split the work.");
        DelegatingCompleter.check(lead.chat());
        return answer;
    }

    /**
     * The same number of plain runs of fresh worker agents, each on its own virtual thread.
     *
     * @param cpu collects the process CPU time
     * @return the last worker's answer
     * @throws InterruptedException when the benchmark is interrupted
     */
    @Benchmark
    public Message plainRuns(ProcessCpu cpu) throws InterruptedException {
        Message[] answers = new Message[children];
        List<Thread> threads = new ArrayList<>(children);
        for (int i = 0; i < children; i++) {
            int index = i;
            threads.add(Thread.ofVirtual().start(() -> {
                Agent worker = Agent.builder("worker").description("Works on one part of a task")
                        .instructions("Do the part you are given.").completer(workerModel).build();
                answers[index] = worker.run(List.of(
                        Message.text("lead", Role.USER, "The parts are independent."),
                        Message.text("lead", Role.USER, "Work on part " + index)));
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        for (int i = 0; i < children; i++) {
            if (answers[i] == null) {
                throw new IllegalStateException("plain run " + i + " gave no answer");
            }
        }
        return answers[children - 1];
    }
}
