package dev.shelly.benchmarks.http;

import dev.shelly.agent.Agent;
import dev.shelly.chats.Message;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTarget;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.provider.spi.WireFormat;
import dev.shelly.providers.openai.OpenAiCompleter;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many concurrent calls over HTTP against {@link ChatServer}, each on its own virtual thread,
 * every one answered after the same latency: the wall time of one round (all calls started,
 * all answered) for the raw socket client ({@link RawClient}, the floor), the OpenAI completer
 * alone (plain and streamed) and {@code Agent.run} (one model call, no tools; it streams, and
 * {@code agent-json}: the same agent over a completer that answers every call with one JSON
 * document, as one that cannot stream does), with the ratio of each to the raw floor of the
 * same reply format. The floor keeps its connections
 * from round to round, as any pooling client does; {@code raw-sse-new} is the same raw client
 * opening a connection for every call and closing it after, for comparison with clients that
 * do not pool. The scenarios run alternately,
 * round after round, in one JVM; the medians are compared.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.shelly.benchmarks.http.HttpFanOut [agents] [latencyMs] [rounds] [scenarios]
 * </pre>
 *
 * <p>Defaults: 1,000 agents, 100 ms, 15 measured rounds after 5 warm-up rounds, every scenario
 * (or those named, comma-separated, with the floors). The completer
 * is built as a user builds it, so it uses the shared HTTP client's default pool.
 */
public final class HttpFanOut {
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** One kind of call, made by every agent of a round. */
    private interface Scenario {
        void call(int index) throws Exception;
    }

    private HttpFanOut() {}

    /**
     * Runs the rounds and prints the medians and ratios.
     *
     * @param args agents, latency in milliseconds, measured rounds (all optional)
     * @throws Exception when the server cannot start or a call fails
     */
    public static void main(String[] args) throws Exception {
        int agents = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int latency = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 15;
        int warmup = 5;
        System.out.printf(Locale.ROOT, "%d agents, %d ms latency, %d rounds after %d warm-up; load average %.2f%n",
                agents, latency, rounds, warmup, OS.getSystemLoadAverage());
        try (ChatServer server = ChatServer.start(Duration.ofMillis(latency), true)) {
            Completer completer = OpenAiCompleter.builder().baseUrl(server.baseUrl())
                    .apiKey("sk-benchmark-key-0123456789").model("gpt-4o").build();
            WireFormat format = OpenAiCompleter.builder().baseUrl(server.baseUrl())
                    .apiKey("sk-benchmark-key-0123456789").model("gpt-4o").wireFormat();
            ModelRequest request = ModelRequest.of(List.of(Message.user("Does handle() close its resource?")));
            try (RawClient raw = new RawClient(server.port(), "/v1/chat/completions", format.request(request, false),
                    format.request(request, true))) {
                Map<String, Scenario> scenarios = new LinkedHashMap<>();
                scenarios.put("raw-json", i -> check(raw.call(false).length == ChatServer.JSON_REPLY.length));
                scenarios.put("raw-sse", i -> check(raw.call(true).length == ChatServer.SSE_REPLY.length));
                scenarios.put("raw-sse-new", i -> check(raw.callOnNewConnection(true).length == ChatServer.SSE_REPLY.length));
                scenarios.put("completer-json", i -> checkText(completer.complete(request)));
                scenarios.put("completer-sse", i -> checkText(completer.complete(request, StreamListener.NONE)));
                scenarios.put("agent-sse", i -> check(Agent.builder("worker").completer(completer).build()
                        .run("Does handle() close its resource?").text().equals(ChatServer.TEXT)));
                Completer unstreamed = new Completer() { // the agent's call, asked for one JSON document
                    @Override
                    public ModelResponse complete(ModelRequest r) {
                        return completer.complete(r);
                    }

                    @Override
                    public ModelTarget target() {
                        return completer.target();
                    }
                };
                scenarios.put("agent-json", i -> check(Agent.builder("worker").completer(unstreamed).build()
                        .run("Does handle() close its resource?").text().equals(ChatServer.TEXT)));
                if (args.length > 3) { // only the scenarios named, and the floors
                    List<String> only = List.of(args[3].split(","));
                    scenarios.keySet().removeIf(n -> !n.equals("raw-json") && !n.equals("raw-sse") && !only.contains(n));
                }
                run(scenarios, agents, rounds, warmup);
                System.out.println("connections Shelly's HTTP client opened: " + server.okHttpConnections());
            }
        }
        System.out.printf(Locale.ROOT, "load average at the end %.2f%n", OS.getSystemLoadAverage());
    }

    private static void run(Map<String, Scenario> scenarios, int agents, int rounds, int warmup) throws Exception {
        List<String> names = new ArrayList<>(scenarios.keySet());
        Map<String, long[]> wall = new LinkedHashMap<>();
        Map<String, long[]> cpu = new LinkedHashMap<>();
        names.forEach(n -> {
            wall.put(n, new long[rounds]);
            cpu.put(n, new long[rounds]);
        });
        for (int r = -warmup; r < rounds; r++) {
            for (int k = 0; k < names.size(); k++) {
                String name = names.get(Math.floorMod(k + r, names.size())); // a different order each round
                System.gc();
                long cpuStart = OS.getProcessCpuTime();
                long start = System.nanoTime();
                round(scenarios.get(name), agents);
                long elapsed = System.nanoTime() - start;
                long cpuUsed = OS.getProcessCpuTime() - cpuStart;
                if (r >= 0) {
                    wall.get(name)[r] = elapsed;
                    cpu.get(name)[r] = cpuUsed;
                }
            }
        }
        double rawJson = median(wall.get("raw-json"));
        double rawSse = median(wall.get("raw-sse"));
        System.out.println("scenario          median ms   min ms   cpu ms (median)   x raw floor");
        for (String name : names) {
            double m = median(wall.get(name));
            double floor = name.endsWith("json") ? rawJson : rawSse;
            System.out.printf(Locale.ROOT, "%-16s %10.1f %8.1f %17.1f %13.2f%n", name, m / 1e6,
                    Arrays.stream(wall.get(name)).min().orElseThrow() / 1e6, median(cpu.get(name)) / 1e6, m / floor);
        }
    }

    private static void round(Scenario scenario, int agents) throws InterruptedException {
        Thread[] threads = new Thread[agents];
        AtomicInteger failures = new AtomicInteger();
        Throwable[] first = new Throwable[1];
        for (int i = 0; i < agents; i++) {
            int index = i;
            threads[i] = Thread.ofVirtual().start(() -> {
                try {
                    scenario.call(index);
                } catch (Throwable t) {
                    if (failures.getAndIncrement() == 0) {
                        first[0] = t;
                    }
                }
            });
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " of " + agents + " calls failed", first[0]);
        }
    }

    private static void checkText(ModelResponse response) {
        check(response.message().text().equals(ChatServer.TEXT));
    }

    private static void check(boolean ok) {
        if (!ok) {
            throw new IllegalStateException("unexpected reply");
        }
    }

    private static double median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    }
}
