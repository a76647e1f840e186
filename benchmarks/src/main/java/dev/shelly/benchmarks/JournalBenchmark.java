package dev.shelly.benchmarks;

import dev.shelly.agent.Agent;
import dev.shelly.agent.Conversation;
import dev.shelly.agent.RunContext;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.redis.RedisBackends;
import dev.shelly.storage.spi.FileSessionStore;
import dev.shelly.storage.spi.SessionStore;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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

/**
 * What the turn journal costs per step: one session turn of {@value #STEPS} steps (a model call
 * answered at once with one tool call, the tool answering at once) and the final answer, in a
 * new session, scored per step. Every step journals three entries (the response, the call
 * started, the call finished), each durable before the turn goes on; the turn adds its start,
 * its end and two saves (the new session's and the turn's).
 *
 * <p>{@code store}: {@code plain} (the entry agent's {@code Agent.run}, no session: what a run
 * outside the engine pays), {@code memory} (a session of an engine that saves none: no journal),
 * {@code file} (a {@code FileSessionStore} in a temporary folder: each entry a line written and
 * synced with {@code fsync}), {@code redis} (a {@code RedisSessionStore}: each entry one
 * lease-checking script, on a {@code redis-server} without persistence) and {@code redis-fsync}
 * (the same server with {@code appendonly yes} and {@code appendfsync always}: each entry synced
 * to the server's disk before it is acknowledged). The journal's cost per step is a store's
 * score less {@code memory}'s.
 *
 * <p>The Redis runs start {@code redis-server} on a free port (or use {@code REDIS_URL}); when it
 * is not on the PATH they fail at once saying so, and the other stores still run.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class JournalBenchmark {
    static final int STEPS = 10;

    @Param({"plain", "memory", "file", "redis", "redis-fsync"})
    String store;

    private Path dir;
    private Process server;
    private RedisBackends redis;
    private Engine engine;
    private Agent agent;

    /** A model that answers at once: a tool call per step until {@value #STEPS}, then the answer. */
    static Completer model() {
        return request -> {
            int step = 0;
            for (Message m : request.messages()) {
                step = m.role() == Role.USER ? 0 : m.role() == Role.ASSISTANT ? step + 1 : step;
            }
            List<Part> parts = new ArrayList<>(1);
            parts.add(step < STEPS ? new ToolCall("c" + step, "work", "{\"n\":" + step + "}") : new Text("done"));
            return ModelResponse.of(new Message("lead", Role.ASSISTANT, parts));
        };
    }

    @Setup
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("shelly-journal-bench");
        SessionStore sessions = switch (store) {
            case "plain", "memory" -> null;
            case "file" -> FileSessionStore.in(dir.resolve("sessions"));
            case "redis", "redis-fsync" -> {
                redis = connect(store.equals("redis-fsync"));
                yield redis.sessionStore("bench");
            }
            default -> throw new IllegalArgumentException("unknown store " + store);
        };
        EngineConfig config = EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "x").apiKey("k").build())
                .agent(AgentConfig.builder("lead").description("Works").toolboxes("ops").maxIterations(STEPS + 2).build())
                .entryAgent("lead").build();
        Engine.Builder builder = Engine.builder().config(config).completer("m", model())
                .toolbox("ops", ToolBox.of(Tool.of("work", "Works", "{\"type\":\"object\"}",
                        (input, ctx) -> ToolOutput.text("worked " + input.path("n").asInt()))));
        engine = (sessions == null ? builder : builder.sessionStore(sessions)).build();
        agent = engine.agent("lead");
    }

    private RedisBackends connect(boolean fsync) throws Exception {
        String url = System.getenv("REDIS_URL");
        if (url == null || url.isBlank()) {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            List<String> line = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port), "--bind",
                    "127.0.0.1", "--save", "", "--dir", dir.toString(), "--daemonize", "no"));
            line.addAll(fsync ? List.of("--appendonly", "yes", "--appendfsync", "always") : List.of("--appendonly", "no"));
            try {
                server = new ProcessBuilder(line).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            } catch (IOException e) {
                throw new IllegalStateException("redis-server is not on the PATH and REDIS_URL is not set: the "
                        + store + " figures are skipped (" + e.getMessage() + ")", e);
            }
            url = "redis://127.0.0.1:" + port;
        } else if (fsync) {
            throw new IllegalStateException("redis-fsync starts its own redis-server; unset REDIS_URL to run it");
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return RedisBackends.builder(url).keyPrefix("bench:" + UUID.randomUUID() + ":").build();
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    /**
     * One turn of {@value #STEPS} steps, scored per step.
     *
     * @return the answer
     */
    @Benchmark
    @OperationsPerInvocation(STEPS)
    public String step() {
        if (store.equals("plain")) {
            return agent.run(new Conversation(), "go", RunContext.root()).text();
        }
        try (Session session = engine.newSession()) {
            return session.send("go").text();
        }
    }

    @TearDown
    public void tearDown() throws Exception {
        engine.close();
        if (redis != null) {
            redis.close();
        }
        if (server != null) {
            server.destroy();
            server.waitFor(10, TimeUnit.SECONDS);
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
