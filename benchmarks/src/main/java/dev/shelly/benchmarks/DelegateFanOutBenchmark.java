package dev.shelly.benchmarks;

import dev.shelly.agent.Agent;
import dev.shelly.agent.Registry;
import dev.shelly.chats.Message;
import java.time.Duration;
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

    @Setup
    public void setup() {
        WaitingCompleter workerModel = new WaitingCompleter(Duration.ofMillis(latencyMillis));
        registry = new Registry().register("worker", "Works on one part of a task",
                () -> Agent.builder("worker").description("Works on one part of a task")
                        .instructions("Do the part you are given.").completer(workerModel).build());
        leadModel = new DelegatingCompleter(children);
    }

    @Benchmark
    public Message fanOut() {
        Agent lead = Agent.builder("lead").completer(leadModel).registry(registry).maxDelegationDepth(1).build();
        Message answer = lead.run("Split the work.");
        DelegatingCompleter.check(lead.chat());
        return answer;
    }
}
