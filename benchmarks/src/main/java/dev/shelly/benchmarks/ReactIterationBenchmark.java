package dev.shelly.benchmarks;

import dev.shelly.agent.Agent;
import dev.shelly.agent.RunContext;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.otel.ShellyTelemetry;
import dev.shelly.providers.anthropic.AnthropicCompleter;
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
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
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
 * <p>{@code model} says what answers: {@code instant} (a model that answers at once, so that the
 * figure is the agent's own work) or {@code http} (Shelly's Anthropic completer against a server
 * on the loopback interface that answers with the same replies in the Messages API's JSON: the
 * iteration a user runs, minus the provider's own time).
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

    @Param({"instant", "http"})
    String model;

    private List<Message> history;
    private ToolBox tools;
    private Completer completer;
    private MessagesServer server;
    /** The caller's scope, made once for every variant so that they differ only in the observers. */
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
        completer = switch (model) {
            case "instant" -> new InstantCompleter("lookup", "{\"q\":\"the answer\"}");
            case "http" -> {
                server = MessagesServer.start();
                yield AnthropicCompleter.builder().model("claude-sonnet-4-5").apiKey("sk-ant-bench-0123456789")
                        .baseUrl("http://127.0.0.1:" + server.port() + "/").environment(n -> null)
                        .retry(RetryPolicy.none()).build();
            }
            default -> throw new IllegalArgumentException("model must be instant or http, was " + model);
        };
        scope = switch (tracing) {
            case "none" -> RunContext.root();
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
    public void tearDown() throws IOException {
        if (sdk != null) {
            sdk.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /**
     * A Messages API server on the loopback interface, plain HTTP/1.1 with keep-alive, one
     * thread per connection: a tool call to a request whose chat does not hold a tool result
     * yet, the final answer to one that does.
     */
    static final class MessagesServer implements AutoCloseable {
        private static final byte[] CALL = reply("{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
                + "\"model\":\"claude-sonnet-4-5\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_1\","
                + "\"name\":\"lookup\",\"input\":{\"q\":\"the answer\"}}],\"stop_reason\":\"tool_use\","
                + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":120,\"output_tokens\":12}}");
        private static final byte[] ANSWER = reply("{\"id\":\"msg_2\",\"type\":\"message\",\"role\":\"assistant\","
                + "\"model\":\"claude-sonnet-4-5\",\"content\":[{\"type\":\"text\",\"text\":\"The answer is 42.\"}],"
                + "\"stop_reason\":\"end_turn\",\"stop_sequence\":null,"
                + "\"usage\":{\"input_tokens\":140,\"output_tokens\":8}}");
        private static final byte[] TOOL_RESULT = "\"tool_result\"".getBytes(StandardCharsets.US_ASCII);

        private final ServerSocket socket;

        private MessagesServer(ServerSocket socket) {
            this.socket = socket;
        }

        private static byte[] reply(String json) {
            byte[] body = json.getBytes(StandardCharsets.UTF_8);
            byte[] head = ("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: " + body.length
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            byte[] all = Arrays.copyOf(head, head.length + body.length);
            System.arraycopy(body, 0, all, head.length, body.length);
            return all;
        }

        static MessagesServer start() {
            try {
                MessagesServer server = new MessagesServer(new ServerSocket(0, 16, InetAddress.getLoopbackAddress()));
                Thread.ofPlatform().daemon().name("messages-server").start(server::accept);
                return server;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        int port() {
            return socket.getLocalPort();
        }

        private void accept() {
            while (!socket.isClosed()) {
                try {
                    Socket connection = socket.accept();
                    connection.setTcpNoDelay(true);
                    Thread.ofPlatform().daemon().name("messages-connection").start(() -> serve(connection));
                } catch (IOException e) {
                    return; // closed
                }
            }
        }

        /** Answers the requests of one connection until the client closes it. */
        private static void serve(Socket connection) {
            try (connection; InputStream in = new BufferedInputStream(connection.getInputStream());
                    OutputStream out = connection.getOutputStream()) {
                byte[] body = new byte[1 << 16];
                while (true) {
                    int length = -1;
                    for (String line = line(in); line != null && !line.isEmpty(); line = line(in)) {
                        if (line.regionMatches(true, 0, "content-length:", 0, 15)) {
                            length = Integer.parseInt(line.substring(15).strip());
                        }
                    }
                    if (length < 0) {
                        return;
                    }
                    if (length > body.length) {
                        body = new byte[length];
                    }
                    in.readNBytes(body, 0, length);
                    out.write(contains(body, length, TOOL_RESULT) ? ANSWER : CALL);
                    out.flush();
                }
            } catch (IOException e) {
                // the client went away
            }
        }

        /** One header line without its line break, or null at the end of the stream. */
        private static String line(InputStream in) throws IOException {
            StringBuilder sb = new StringBuilder();
            for (int b = in.read(); b >= 0; b = in.read()) {
                if (b == '\n') {
                    int end = sb.length() > 0 && sb.charAt(sb.length() - 1) == '\r' ? sb.length() - 1 : sb.length();
                    return sb.substring(0, end);
                }
                sb.append((char) b);
            }
            return null;
        }

        private static boolean contains(byte[] data, int length, byte[] needle) {
            outer:
            for (int i = 0; i + needle.length <= length; i++) {
                for (int j = 0; j < needle.length; j++) {
                    if (data[i + j] != needle[j]) {
                        continue outer;
                    }
                }
                return true;
            }
            return false;
        }

        @Override
        public void close() throws IOException {
            socket.close();
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
        Agent agent = Agent.builder("bench").completer(completer).toolboxes(tools).chat(new Chat(history)).build();
        return agent.run("What is the answer?", scope);
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
        return Agent.builder("bench").completer(completer).toolboxes(tools).chat(new Chat(history)).build();
    }
}
