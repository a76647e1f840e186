package dev.shelly.benchmarks.redis;

import dev.shelly.redis.RedisBackends;
import dev.shelly.state.tasks.Task;
import dev.shelly.state.tasks.TaskBoard;
import dev.shelly.state.tasks.TaskStatus;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The task board on Redis, measured from outside (not JMH: the work spans processes).
 *
 * <ol>
 *   <li><b>Claims per second across two JVMs:</b> a board of {@code tasks} pending tasks; two
 *       child JVMs with {@code threads} threads each claim ({@code claimNext}) and complete every
 *       task; the figure is tasks / wall time from the start signal until both children are done.
 *       Each task costs a claim and a completion (two compare-and-set scripts and their reads).</li>
 *   <li><b>Watch wake-up latency:</b> one process, two connections; a thread watches a task
 *       ({@code TaskBoard.watch}) through one connection while another claims it through the
 *       other; the figure is the time from just before the claim until the watcher returns:
 *       the script, the pub/sub message, and the watcher's wake-up and re-read.</li>
 * </ol>
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar dev.shelly.benchmarks.redis.RedisBoardBenchmark [tasks] [threads] [watches]
 * }</pre>
 * With {@code REDIS_URL} set it uses that server; else it starts {@code redis-server} on a free port.
 */
public final class RedisBoardBenchmark {
    private RedisBoardBenchmark() {}

    /**
     * Runs both measurements, or a child's part.
     *
     * @param args {@code [tasks] [threads] [watches]}, or {@code child <url> <prefix> <name> <threads>}
     * @throws Exception when a run fails
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("child")) {
            child(args);
            return;
        }
        int tasks = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        int watches = args.length > 2 ? Integer.parseInt(args[2]) : 1_000;
        String url = System.getenv("REDIS_URL");
        Process server = null;
        if (url == null || url.isBlank()) {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            server = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--daemonize", "no")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            url = "redis://127.0.0.1:" + port;
        }
        try {
            String prefix = "bench:" + UUID.randomUUID() + ":";
            try (RedisBackends redis = connect(url, prefix, server != null);
                    RedisBackends other = RedisBackends.builder(url).keyPrefix(prefix).build()) {
                claims(url, prefix, redis, tasks, threads);
                watches(redis, other, watches);
            }
        } finally {
            if (server != null) {
                server.destroy();
                server.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static void claims(String url, String prefix, RedisBackends redis, int tasks, int threads) throws Exception {
        TaskBoard board = new TaskBoard(redis.taskBackend("claims"), Clock.systemUTC());
        for (int i = 0; i < tasks; i++) {
            board.create("t" + i, "");
        }
        List<Process> children = new ArrayList<>();
        List<BufferedReader> outputs = new ArrayList<>();
        for (String name : List.of("a", "b")) {
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                    System.getProperty("java.class.path"), RedisBoardBenchmark.class.getName(), "child", url, prefix,
                    name, Integer.toString(threads)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            children.add(p);
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            outputs.add(out);
        }
        for (BufferedReader out : outputs) {
            expect(out, "READY");
        }
        long start = System.nanoTime();
        for (Process p : children) {
            OutputStream in = p.getOutputStream();
            in.write("go\n".getBytes(StandardCharsets.UTF_8));
            in.flush();
        }
        long[] done = new long[children.size()];
        for (int i = 0; i < children.size(); i++) {
            String line = expect(outputs.get(i), "DONE");
            done[i] = Long.parseLong(line.substring("DONE ".length()));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        for (Process p : children) {
            p.waitFor(60, TimeUnit.SECONDS);
        }
        long completed = board.list(TaskStatus.COMPLETED, null).size();
        System.out.printf("claims: %d tasks claimed and completed by 2 JVMs x %d threads in %.2f s: %.0f tasks/s "
                + "(JVM a %d, JVM b %d); %d completed on the board%n", tasks, threads, seconds, tasks / seconds, done[0],
                done[1], completed);
    }

    private static void watches(RedisBackends redis, RedisBackends other, int rounds) throws Exception {
        TaskBoard watched = new TaskBoard(redis.taskBackend("watch"), Clock.systemUTC());
        TaskBoard writer = new TaskBoard(other.taskBackend("watch"), Clock.systemUTC());
        long[] latencies = new long[rounds];
        for (int i = 0; i < rounds + 100; i++) {
            Task t = watched.create("w" + i, "");
            AtomicLong before = new AtomicLong();
            Thread claimer = Thread.ofPlatform().unstarted(() -> {
                before.set(System.nanoTime());
                writer.claim(t.id(), "writer");
            });
            Thread watcher = Thread.currentThread();
            Thread.ofVirtual().start(() -> {
                // Start the claim once the watcher is parked in its wait (after its first read,
                // which also parks it briefly: hence the extra millisecond).
                while (watcher.getState() != Thread.State.TIMED_WAITING) {
                    Thread.onSpinWait();
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
                claimer.start();
            });
            Optional<Task> seen = watched.watch(t.id(), TaskStatus.PENDING, Duration.ofSeconds(10));
            long after = System.nanoTime();
            claimer.join();
            if (seen.isEmpty()) {
                throw new IllegalStateException("the watcher of " + t.id() + " did not wake within 10 s");
            }
            if (i >= 100) {
                latencies[i - 100] = after - before.get();
            }
        }
        Arrays.sort(latencies);
        System.out.printf("watch wake-up over pub/sub, %d rounds after 100 warm-up: median %.0f µs, p90 %.0f µs, "
                + "p99 %.0f µs, max %.0f µs%n", rounds, latencies[rounds / 2] / 1e3, latencies[rounds * 9 / 10] / 1e3,
                latencies[rounds * 99 / 100] / 1e3, latencies[rounds - 1] / 1e3);
    }

    private static void child(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        try (RedisBackends redis = RedisBackends.builder(args[1]).keyPrefix(args[2]).build()) {
            TaskBoard board = new TaskBoard(redis.taskBackend("claims"), Clock.systemUTC());
            int threads = Integer.parseInt(args[4]);
            board.list(TaskStatus.PENDING, null); // warm the connection and the scripts
            out.println("READY");
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            AtomicLong count = new AtomicLong();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String agent = args[3] + "-" + t;
                workers.add(Thread.ofPlatform().start(() -> {
                    for (Optional<Task> next = board.claimNext(agent); next.isPresent(); next = board.claimNext(agent)) {
                        board.update(next.get().id(), TaskStatus.COMPLETED, "ok", agent);
                        count.incrementAndGet();
                    }
                }));
            }
            for (Thread w : workers) {
                w.join();
            }
            out.println("DONE " + count.get());
        }
    }

    private static String expect(BufferedReader out, String prefix) throws IOException {
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        throw new IllegalStateException("a child JVM ended before printing " + prefix);
    }

    private static RedisBackends connect(String url, String prefix, boolean starting) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(starting ? 20 : 0);
        while (true) {
            try {
                return RedisBackends.builder(url).keyPrefix(prefix).build();
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }
}
