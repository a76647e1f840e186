package dev.shelly.benchmarks;

import dev.shelly.agent.Agent;
import dev.shelly.agent.RunContext;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.otel.ShellyTelemetry;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.MetricExporter;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The agent's own overhead for one ReAct iteration with one tool call: user message, model call
 * (a tool call), the tool on a virtual thread, the results message, model call (the answer),
 * with a model that answers at once, on a chat that already holds 10 or 200 messages.
 *
 * <p>Each invocation builds a fresh agent on a fresh copy of the history ({@link #setupOnly}
 * measures that part alone, to subtract).
 *
 * <p>{@code tracing} says what watches the run: {@code none} (no observer: the cost of the seam
 * alone), {@code noop} (shelly-otel's {@code ShellyTelemetry} on {@code OpenTelemetry.noop()}:
 * telemetry wired but off) or {@code sdk} (on the OpenTelemetry SDK, every span sampled and
 * batched, metrics aggregated, exported to nowhere: telemetry on).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ReactIterationBenchmark {

    static final int BATCH = 100;

    @Param({"10", "200"})
    int messages;

    @Param({"none", "noop", "sdk"})
    String tracing;

    private List<Message> history;
    private ToolBox tools;
    private InstantCompleter model;
    private RunContext scope;
    private OpenTelemetrySdk sdk;

    @Setup
    public void setup() {
        history = new ArrayList<>(messages);
        history.add(Message.system("You are bench. A benchmark agent.\n\n## Instructions\n\nAnswer briefly."));
        for (int i = 1; i < messages; i++) {
            history.add(i % 2 == 1
                    ? Message.user("Question " + i + ": what does the report say about the quarterly numbers?")
                    : Message.text("bench", Role.ASSISTANT, "Answer " + i + ": the numbers grew by four percent."));
        }
        tools = ToolBox.of(Tool.of("lookup", "Looks a fact up",
                "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"}},\"required\":[\"q\"]}",
                (input, ctx) -> ToolOutput.text("42")));
        model = new InstantCompleter("lookup", "{\"q\":\"the answer\"}");
        scope = switch (tracing) {
            case "none" -> null;
            case "noop" -> RunContext.builder().observers(ShellyTelemetry.create(OpenTelemetry.noop())).build();
            case "sdk" -> {
                sdk = OpenTelemetrySdk.builder()
                        .setTracerProvider(SdkTracerProvider.builder()
                                .addSpanProcessor(BatchSpanProcessor.builder(new DroppingSpanExporter()).build()).build())
                        .setMeterProvider(SdkMeterProvider.builder()
                                .registerMetricReader(PeriodicMetricReader.create(new DroppingMetricExporter())).build())
                        .build();
                yield RunContext.builder().observers(ShellyTelemetry.create(sdk)).build();
            }
            default -> throw new IllegalArgumentException("tracing must be none, noop or sdk, was " + tracing);
        };
    }

    @TearDown
    public void tearDown() {
        if (sdk != null) {
            sdk.close();
        }
    }

    /** Takes every batch of spans and keeps none. */
    static final class DroppingSpanExporter implements SpanExporter {
        @Override
        public CompletableResultCode export(Collection<SpanData> spans) {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode flush() {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode shutdown() {
            return CompletableResultCode.ofSuccess();
        }
    }

    /** Takes every collection of metrics and keeps none. */
    static final class DroppingMetricExporter implements MetricExporter {
        @Override
        public CompletableResultCode export(Collection<MetricData> metrics) {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode flush() {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode shutdown() {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public AggregationTemporality getAggregationTemporality(InstrumentType type) {
            return AggregationTemporality.CUMULATIVE;
        }
    }

    @Benchmark
    public Message oneIterationWithOneToolCall() {
        Agent agent = Agent.builder("bench").completer(model).toolboxes(tools).chat(new Chat(history)).build();
        return scope == null ? agent.run("What is the answer?") : agent.run("What is the answer?", scope);
    }

    /**
     * The same iteration, a hundred times in a row on one virtual thread, as agents run when they
     * are delegated to or served by the engine: handing the tool call to its own virtual thread
     * and back then stays on the same carrier threads instead of waking a parked platform thread.
     *
     * @param sink receives each answer
     * @throws InterruptedException when the benchmark is interrupted
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void oneIterationOnAVirtualThread(Blackhole sink) throws InterruptedException {
        Thread t = Thread.ofVirtual().start(() -> {
            for (int i = 0; i < BATCH; i++) {
                sink.consume(oneIterationWithOneToolCall());
            }
        });
        t.join();
    }

    @Benchmark
    public Agent setupOnly() {
        return Agent.builder("bench").completer(model).toolboxes(tools).chat(new Chat(history)).build();
    }
}
