package dev.shelly.benchmarks.durable;

import dev.shelly.agent.Agent;
import dev.shelly.agent.Conversation;
import dev.shelly.agent.RunContext;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.Usage;
import dev.shelly.redis.RedisBackends;
import dev.shelly.storage.spi.FileSessionStore;
import dev.shelly.storage.spi.SessionStore;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the turn journal costs: one session turn of {@value #STEPS} steps (a tool call each,
 * then the answer) with a model that answers at once, so that the figure is the engine's and the
 * store's own work. Each operation is a fresh session: created (and saved), the turn, closed.
 *
 * <p>{@code store} says where the session is kept, and whether with its journal:
 * <ul>
 *   <li>{@code agent}: no session at all, a plain {@code Agent.run} on a fresh conversation:
 *       what an application without sessions pays (it has no journal link);</li>
 *   <li>{@code memory} / {@code memory-journal}: a store in memory, without and with a journal
 *       (the journal's own work: encoding each step's entry);</li>
 *   <li>{@code file} / {@code file-journal}: {@link FileSessionStore} in a temporary folder, the
 *       journal hidden and shown (each entry is a line appended and forced to disk);</li>
 *   <li>{@code redis} / {@code redis-journal}: the Redis store on a local redis-server (each
 *       entry is one script).</li>
 * </ul>
 * The journal's overhead per step is the difference of a pair divided by the steps; a turn
 * writes {@code 3 × STEPS + 3} entries ({@code turn}, a {@code model} per model call, a
 * {@code started} and a {@code finished} per tool call, {@code end}).
 *
 * <p>With {@code REDIS_URL} set it uses that server; else it starts {@code redis-server} on a free port.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class JournalBenchmark {
    /** The tool calls of the measured turn. */
    public static final int STEPS = 10;

    @Param({"agent", "memory", "memory-journal", "file", "file-journal", "redis", "redis-journal"})
    public String store;

    private final AtomicLong sessions = new AtomicLong();
    private Engine engine;
    private Agent agent;
    private Path dir;
    private Process redisServer;
    private RedisBackends redis;

    @Setup
    public void setUp() throws IOException {
        if (store.equals("agent")) {
            agent = Agent.builder("lead").description("Leads").completer(new StepsCompleter()).toolboxes(tools()).build();
            return;
        }
        boolean journal = store.endsWith("-journal");
        SessionStore sessionStore = switch (store.replace("-journal", "")) {
            case "memory" -> new MemorySessionStore(journal);
            case "file" -> {
                dir = Files.createTempDirectory("shelly-journal-bench");
                SessionStore files = FileSessionStore.in(dir);
                yield journal ? files : new WithoutJournal(files);
            }
            default -> {
                redis = RedisBackends.builder(redisUrl()).keyPrefix("bench:" + UUID.randomUUID() + ":").build();
                yield journal ? redis.sessions() : new WithoutJournal(redis.sessions());
            }
        };
        EngineConfig config = EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "x").apiKey("k").build())
                .agent(AgentConfig.builder("lead").description("Leads").toolboxes("steps").build())
                .build();
        engine = Engine.builder().config(config).environment(Map.<String, String>of()::get)
                .completer("m", new StepsCompleter()).toolbox("steps", tools())
                .sessionStore(sessionStore).sessionWait(Duration.ofSeconds(30)).build();
    }

    private String redisUrl() throws IOException {
        String url = System.getenv("REDIS_URL");
        if (url != null && !url.isBlank()) {
            return url;
        }
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        redisServer = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--daemonize", "no")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        String started = "redis://127.0.0.1:" + port;
        for (int i = 0; i < 100; i++) {
            try (RedisBackends probe = RedisBackends.builder(started).build()) {
                if (probe.ping()) {
                    return started;
                }
            } catch (RuntimeException notYet) {
                // the server is still starting
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new IllegalStateException("redis-server did not start on port " + port);
    }

    @TearDown
    public void tearDown() throws IOException, InterruptedException {
        if (engine != null) {
            engine.close();
        }
        if (redis != null) {
            redis.close();
        }
        if (redisServer != null) {
            redisServer.destroy();
            redisServer.waitFor(10, TimeUnit.SECONDS);
        }
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** One turn of {@value #STEPS} tool calls, in a fresh session (or, for {@code agent}, a fresh conversation). */
    @Benchmark
    public Message turn() {
        if (agent != null) {
            return agent.run(new Conversation(), List.of(Message.user("go")), RunContext.root());
        }
        try (Session session = engine.newSession("s" + sessions.incrementAndGet())) {
            return session.send("go").reply();
        }
    }

    private static ToolBox tools() {
        return ToolBox.of(Tool.of("step", "Takes a step", "{\"type\":\"object\"}",
                (input, ctx) -> ToolOutput.text("stepped")));
    }

    /** Calls {@code step} until the turn holds {@value #STEPS} results, then answers; replies built once. */
    static final class StepsCompleter implements Completer {
        private final ModelResponse[] calls = new ModelResponse[STEPS];
        private final ModelResponse answer = new ModelResponse(Message.text("model", Role.ASSISTANT, "done"),
                Usage.of(140, 8), StopReason.END_TURN, null, null, null, null);

        StepsCompleter() {
            for (int i = 0; i < STEPS; i++) {
                calls[i] = new ModelResponse(Message.of("model", Role.ASSISTANT, new ToolCall("call_" + i, "step", "{}")),
                        Usage.of(120, 12), StopReason.TOOL_USE, null, null, null, null);
            }
        }

        @Override
        public ModelResponse complete(ModelRequest request) {
            int results = 0;
            for (Message m : request.messages()) {
                results += m.toolResults().size();
            }
            return results >= STEPS ? answer : calls[results];
        }
    }
}
