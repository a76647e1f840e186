package dev.shelly.benchmarks;

import dev.shelly.agent.Agent;
import dev.shelly.agent.context.ContextPolicy;
import dev.shelly.agent.context.ContextStrategy;
import dev.shelly.agent.context.ContextView;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.TokenEstimator;
import dev.shelly.modeladapter.Usage;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A long run with and without context management, in one JVM: {@value #ITERATIONS} iterations
 * whose tool returns 2 KB each, against a model that answers at once and reports as input
 * tokens what {@link TokenEstimator#heuristic()} counts for the request (standing in for the
 * provider's count), with a {@value #WINDOW}-token window. Prints the largest request, the total
 * input tokens with and without the strategies, and what context management costs per
 * iteration: the time spent inside the strategies (measured around each strategy) and in the
 * token accounting (measured around the policy's estimator: every message the view gains is
 * estimated once) against the time of an iteration without them, each the median of
 * {@value #RUNS} runs after {@value #WARMUP} runs of each kind (a run is only 300 iterations:
 * fewer leave the strategies' code partly interpreted while the plain loop is compiled).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.shelly.benchmarks.LongRunBenchmark
 * </pre>
 */
public final class LongRunBenchmark {
    static final int ITERATIONS = 300;
    static final int WINDOW = 32_000;
    static final int RESULT_CHARS = 2_048;
    private static final int RUNS = 15;
    private static final int WARMUP = 200;

    private LongRunBenchmark() {}

    /** A model that calls the tool {@value #ITERATIONS} times, then answers; summaries are one line. */
    private static final class Model implements Completer {
        private final TokenEstimator count = TokenEstimator.heuristic();
        long largest;
        long total;
        int calls;

        @Override
        public ModelResponse complete(ModelRequest request) {
            long tokens = count.request(request);
            if (request.tools().isEmpty()) {
                return new ModelResponse(Message.text("model", Role.ASSISTANT, "Read pages 1 to " + calls + "."),
                        Usage.of(tokens, 20), StopReason.END_TURN, null, null, null, null);
            }
            largest = Math.max(largest, tokens);
            total += tokens;
            calls++;
            Message reply = calls <= ITERATIONS
                    ? Message.of("model", Role.ASSISTANT, new ToolCall("call_" + calls, "read", "{\"page\":" + calls + "}"))
                    : Message.text("model", Role.ASSISTANT, "Done.");
            return new ModelResponse(reply, Usage.of(tokens, 12), null, null, null, null, null);
        }
    }

    /** Measures the time spent inside a strategy. */
    private record Timed(ContextStrategy inner, AtomicLong nanos) implements ContextStrategy {
        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public void apply(ContextView view) {
            long start = System.nanoTime();
            try {
                inner.apply(view);
            } finally {
                nanos.addAndGet(System.nanoTime() - start);
            }
        }
    }

    /** Measures the time spent estimating tokens. */
    private record TimedEstimator(TokenEstimator inner, AtomicLong nanos) implements TokenEstimator {
        @Override
        public long message(Message message) {
            return timed(() -> inner.message(message));
        }

        @Override
        public long tool(ToolDefinition tool) {
            return timed(() -> inner.tool(tool));
        }

        private long timed(LongSupplier estimate) {
            long start = System.nanoTime();
            try {
                return estimate.getAsLong();
            } finally {
                nanos.addAndGet(System.nanoTime() - start);
            }
        }
    }

    private record Result(long largest, long total, long nanos, long trimmingNanos, long compactionNanos,
            long accountingNanos) {}

    private static Result run(boolean managed) {
        String page = "x".repeat(RESULT_CHARS);
        ToolBox tools = ToolBox.of(Tool.of("read", "Read a page", "{\"type\":\"object\"}",
                (input, ctx) -> ToolOutput.text(page)));
        Model model = new Model();
        AtomicLong trimming = new AtomicLong();
        AtomicLong compaction = new AtomicLong();
        AtomicLong accounting = new AtomicLong();
        Agent.Builder b = Agent.builder("reader").completer(model).toolboxes(tools).maxIterations(ITERATIONS + 1)
                .promptCaching(false);
        if (managed) {
            b.contextPolicy(ContextPolicy.builder().window(WINDOW)
                    .estimator(new TimedEstimator(TokenEstimator.heuristic(), accounting))
                    .strategies(new Timed(ContextStrategy.trimToolResults(4, 500), trimming),
                            new Timed(ContextStrategy.compaction(), compaction))
                    .build());
        }
        Agent agent = b.build();
        long start = System.nanoTime();
        agent.run("Read every page.");
        return new Result(model.largest, model.total, System.nanoTime() - start, trimming.get(), compaction.get(),
                accounting.get());
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    /**
     * Runs the benchmark.
     *
     * @param args unused
     */
    public static void main(String[] args) {
        int warmup = args.length > 0 ? Integer.parseInt(args[0]) : WARMUP;
        for (int i = 0; i < warmup; i++) {
            run(false);
            run(true);
        }
        List<Long> plain = new ArrayList<>();
        List<Long> managed = new ArrayList<>();
        List<Long> trims = new ArrayList<>();
        List<Long> compactions = new ArrayList<>();
        List<Long> accountings = new ArrayList<>();
        List<Long> overheads = new ArrayList<>();
        Result without = null;
        Result with = null;
        for (int i = 0; i < RUNS; i++) {
            without = run(false);
            with = run(true);
            plain.add(without.nanos());
            managed.add(with.nanos());
            trims.add(with.trimmingNanos());
            compactions.add(with.compactionNanos());
            accountings.add(with.accountingNanos());
            overheads.add(with.trimmingNanos() + with.compactionNanos() + with.accountingNanos());
        }
        double perPlain = perIteration(plain);
        double perManaged = perIteration(managed);
        double perOverhead = perIteration(overheads);
        System.out.printf("iterations: %d, tool results: %d characters, window: %d tokens%n", ITERATIONS, RESULT_CHARS, WINDOW);
        System.out.printf("largest request: %d tokens with the strategies, %d without%n", with.largest(), without.largest());
        System.out.printf("input tokens sent: %d with the strategies, %d without (%.1f%%)%n", with.total(), without.total(),
                100.0 * with.total() / without.total());
        System.out.printf("an iteration: %.1f us without the strategies, %.1f us with them (median of %d runs after %d)%n",
                perPlain, perManaged, RUNS, WARMUP);
        System.out.printf("inside the strategies and the token accounting: %.2f us an iteration (trimming %.2f, compaction "
                + "with its summary call %.2f, accounting %.2f), %.1f%% of an iteration without them%n", perOverhead,
                perIteration(trims), perIteration(compactions), perIteration(accountings), 100.0 * perOverhead / perPlain);
    }

    private static double perIteration(List<Long> nanos) {
        return median(nanos) / 1_000.0 / (ITERATIONS + 1);
    }
}
