package dev.shelly.benchmarks.http;

import dev.shelly.chats.Message;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.providers.openai.OpenAiCompleter;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One OpenAI Chat Completions reply (18 tokens of text and the usage) fetched from
 * {@link ChatServer} in this process, answering at once, by the completer a user builds: as one
 * JSON document ({@link #json}) and as the server-sent events of a stream ({@link #sse}, 21
 * events). Each call runs on a virtual thread of its own, as an agent's does. Run it with
 * {@code -prof gc}: {@code gc.alloc.rate.norm} is what one reply allocates in the whole JVM (the
 * server's share included: about the same for both, since the server sends the stream with its
 * length rather than chunked, whose buffer would be the server's cost, not the client's); the
 * stream must allocate no more than the document.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SseVsJsonBenchmark {
    private ChatServer server;
    private Completer completer;
    private ModelRequest request;

    /**
     * Starts the server and builds the completer.
     *
     * @throws IOException when the server cannot start
     */
    @Setup
    public void setUp() throws IOException {
        server = ChatServer.start(Duration.ZERO, false);
        completer = OpenAiCompleter.builder().baseUrl(server.baseUrl()).apiKey("sk-benchmark-key-0123456789")
                .model("gpt-4o").build();
        request = ModelRequest.of(List.of(Message.user("Does handle() close its resource?")));
    }

    /** Stops the server. */
    @TearDown
    public void tearDown() {
        server.close();
    }

    /**
     * The reply as one JSON document.
     *
     * @return the response
     * @throws InterruptedException when the benchmark is interrupted
     */
    @Benchmark
    public ModelResponse json() throws InterruptedException {
        return onVirtualThread(false);
    }

    /**
     * The same reply as server-sent events.
     *
     * @return the response
     * @throws InterruptedException when the benchmark is interrupted
     */
    @Benchmark
    public ModelResponse sse() throws InterruptedException {
        return onVirtualThread(true);
    }

    private ModelResponse onVirtualThread(boolean stream) throws InterruptedException {
        ModelResponse[] response = new ModelResponse[1];
        Thread.ofVirtual().start(() -> response[0] = stream ? completer.complete(request, StreamListener.NONE)
                : completer.complete(request)).join();
        if (response[0] == null || !response[0].message().text().equals(ChatServer.TEXT)) {
            throw new IllegalStateException("unexpected reply");
        }
        return response[0];
    }
}
