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
 *   <li><b>Claims per second across JVMs:</b> a board of {@code tasks} pending tasks; {@code jvms}
 *       child JVMs with {@code threads} threads each claim ({@code claimNext}) and complete every
 *       task; the figure is tasks / wall time from the start signal until all children are done.
 *       Each task costs a claim and a completion (two compare-and-set scripts and their reads); on
 *       a cluster each write also waits for a replica to confirm it ({@code WAIT}).</li>
 *   <li><b>Watch wake-up latency:</b> one process, two connections; a thread watches a task
 *       ({@code TaskBoard.watch}) through one connection while another claims it through the
 *       other; the figure is the time from just before the claim until the watcher returns:
 *       the script, the pub/sub message, and the watcher's wake-up and re-read.</li>
 * </ol>
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar dev.shelly.benchmarks.redis.RedisBoardBenchmark [tasks] [threads] [watches] [jvms] [cluster]
 * }</pre>
 * With {@code REDIS_URL} set it uses that server (or cluster, {@code redis-cluster://...}); else
 * it starts {@code redis-server} on a free port, or with {@code cluster} a cluster of 3 masters
 * with a replica each (six {@code redis-server}s, joined by {@code redis-cli --cluster create}).
 * It prints the machine's load average with the figures.
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
        int jvms = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        boolean cluster = args.length > 4 && args[4].equals("cluster");
        String url = System.getenv("REDIS_URL");
        Process server = null;
        List<Process> nodes = new ArrayList<>();
        if ((url == null || url.isBlank()) && cluster) {
            url = startCluster(nodes);
        } else if (url == null || url.isBlank()) {
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
                System.out.println("load average before: " + loadAverage());
                claims(url, prefix, redis, tasks, threads, jvms);
                watches(redis, other, watches);
                System.out.println("load average after: " + loadAverage());
            }
        } finally {
            for (Process node : nodes) {
                node.destroy();
                node.waitFor(10, TimeUnit.SECONDS);
            }
            if (server != null) {
                server.destroy();
                server.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static String loadAverage() throws IOException {
        return java.nio.file.Files.readString(Path.of("/proc/loadavg")).strip();
    }

    /** Six redis-servers in cluster mode on free ports, joined into 3 masters with a replica each. */
    private static String startCluster(List<Process> nodes) throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("bench-cluster");
        dir.toFile().deleteOnExit();
        List<String> addresses = new ArrayList<>();
        while (addresses.size() < 6) {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            if (port >= 55_000) {
                continue; // the cluster bus listens on port + 10000
            }
            nodes.add(new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--daemonize", "no", "--cluster-enabled", "yes",
                    "--cluster-config-file", dir.resolve("nodes-" + port + ".conf").toString(),
                    "--cluster-node-timeout", "2000", "--dbfilename", "dump-" + port + ".rdb", "--dir", dir.toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
            addresses.add("127.0.0.1:" + port);
            // Deleted at exit, before the folder (registered first, so deleted last).
            dir.resolve("nodes-" + port + ".conf").toFile().deleteOnExit();
            dir.resolve("dump-" + port + ".rdb").toFile().deleteOnExit();
        }
        Thread.sleep(500);
        List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        create.addAll(addresses);
        create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
        Process p = new ProcessBuilder(create).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(60, TimeUnit.SECONDS);
        if (!out.contains("All 16384 slots covered")) {
            throw new IllegalStateException("redis-cli --cluster create failed: " + out);
        }
        for (String address : addresses) {
            String port = address.substring(address.indexOf(':') + 1);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (true) {
                Process info = new ProcessBuilder("redis-cli", "-p", port, "info", "replication").start();
                String text = new String(info.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                Process state = new ProcessBuilder("redis-cli", "-p", port, "cluster", "info").start();
                String ok = new String(state.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (ok.contains("cluster_state:ok") && (text.contains("role:master") || text.contains("master_link_status:up"))) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the cluster did not become healthy within 30 s");
                }
                Thread.sleep(50);
            }
        }
        return "redis-cluster://" + String.join(",", addresses);
    }

    private static void claims(String url, String prefix, RedisBackends redis, int tasks, int threads, int jvms)
            throws Exception {
        TaskBoard board = new TaskBoard(redis.taskBackend("claims"), Clock.systemUTC());
        for (int i = 0; i < tasks; i++) {
            board.create("t" + i, "");
        }
        List<Process> children = new ArrayList<>();
        List<BufferedReader> outputs = new ArrayList<>();
        for (int j = 0; j < jvms; j++) {
            String name = Character.toString('a' + j);
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
        System.out.printf("claims: %d tasks claimed and completed by %d JVMs x %d threads in %.2f s: %.0f tasks/s "
                + "(per JVM %s); %d completed on the board%n", tasks, jvms, threads, seconds, tasks / seconds,
                Arrays.toString(done), completed);
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
