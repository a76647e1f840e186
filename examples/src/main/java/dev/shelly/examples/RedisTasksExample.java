package dev.shelly.examples;

import dev.shelly.agent.Agent;
import dev.shelly.chats.Message;
import dev.shelly.redis.RedisBackends;
import dev.shelly.state.tasks.Task;
import dev.shelly.state.tasks.TaskBoard;
import dev.shelly.state.tasks.TaskStatus;
import dev.shelly.tools.ToolBox;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One task board on Redis, three processes: this one runs the planner agent, which creates the
 * tasks; two worker processes (this program's {@link #main} in new JVMs) each run two worker
 * agents that claim and finish tasks through the same {@code tasks_*} tools as in
 * {@link TasksExample}. A claim is one Lua script in Redis, so no task is taken twice, across
 * processes too.
 *
 * <p>Redis: {@code REDIS_URL} when it is set; else, when {@code redis-server} is on the PATH, a
 * server of its own on a free port, stopped at the end; else the example says what it needs.
 */
public final class RedisTasksExample implements Example {
    private static final String BOARD = "board";

    @Override
    public String name() {
        return "redis-tasks";
    }

    @Override
    public String description() {
        return "a planner and two worker processes share one task board on Redis";
    }

    @Override
    public String defaultPrompt() {
        return new TasksExample().defaultPrompt();
    }

    @Override
    public Message run(ExampleRun run) throws Exception {
        String url = System.getenv("REDIS_URL");
        Process ownServer = null;
        if (url == null || url.isBlank()) {
            if (!onPath("redis-server")) {
                throw new IllegalStateException("the redis-tasks example needs Redis: set REDIS_URL (e.g. "
                        + "redis://localhost:6379), or install redis-server (e.g. apt-get install redis-server) so "
                        + "that the example can start one of its own");
            }
            int port = freePort();
            ownServer = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--daemonize", "no")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            url = "redis://127.0.0.1:" + port;
            run.note("[redis] started redis-server on port " + port + " (set REDIS_URL to use your own)");
        }
        String prefix = "shelly-example:" + UUID.randomUUID() + ":";
        try (RedisBackends redis = connect(url, prefix, ownServer != null)) {
            TaskBoard board = new TaskBoard(redis.taskBackend(BOARD), Clock.systemUTC());
            Message plan = TasksExample.planner(run, board.tools()).run(run.prompt(), run.scope());

            List<Process> workers = new ArrayList<>();
            List<Thread> relays = new ArrayList<>();
            for (String process : List.of("p1", "p2")) {
                ProcessBuilder pb = new ProcessBuilder(javaCommand(url, prefix, process)).redirectErrorStream(true);
                if (run.models().scripted()) {
                    pb.environment().put("SHELLY_PROVIDER", "scripted");
                }
                Process p = pb.start();
                workers.add(p);
                relays.add(Thread.ofVirtual().start(() -> relay(p, run)));
            }
            for (Process p : workers) {
                if (!p.waitFor(10, TimeUnit.MINUTES)) {
                    p.destroyForcibly();
                    throw new IllegalStateException("a worker process did not finish within 10 minutes");
                }
            }
            for (Thread t : relays) {
                t.join();
            }
            for (Process p : workers) {
                if (p.exitValue() != 0) {
                    throw new IllegalStateException("a worker process failed with exit code " + p.exitValue());
                }
            }
            TasksExample.printBoard(board, run);
            return plan;
        } finally {
            if (ownServer != null) {
                ownServer.destroy();
                ownServer.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * A worker process: two worker agents, named {@code <process>-w1} and {@code <process>-w2},
     * drain the board; then it prints what each finished.
     *
     * @param args the Redis URL, the key prefix and the process's name
     * @throws Exception when the work fails
     */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        ExampleModels models = ExampleModels.select(System.getenv());
        ExampleRun run = new ExampleRun("", models, new ConsoleView(new PrintStream(OutputStreamsNull.INSTANCE)));
        try (RedisBackends redis = RedisBackends.builder(args[0]).keyPrefix(args[1]).build()) {
            TaskBoard board = new TaskBoard(redis.taskBackend(BOARD), Clock.systemUTC());
            ToolBox tools = board.tools();
            List<String> names = List.of(args[2] + "-w1", args[2] + "-w2");
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<Message>> done = new ArrayList<>();
                for (String name : names) {
                    Agent worker = TasksExample.worker(name, run.model(TasksExample.workerScript()), tools, run);
                    done.add(pool.submit(() -> worker.run("Work through the pending tasks on the board.", run.scope())));
                }
                for (Future<Message> f : done) {
                    f.get();
                }
            }
            for (String name : names) {
                List<String> ids = board.list(TaskStatus.COMPLETED, name).stream().map(Task::id).toList();
                out.println(name + " finished " + (ids.isEmpty() ? "nothing" : String.join(", ", ids)));
            }
        }
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

    private static void relay(Process p, ExampleRun run) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                run.note("[worker process] " + line);
            }
        } catch (IOException e) {
            run.note("[worker process] output lost: " + e.getMessage());
        }
    }

    private static List<String> javaCommand(String url, String prefix, String process) {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), RedisTasksExample.class.getName(), url, prefix, process);
    }

    private static boolean onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Discards what the worker processes' agents show; they report their work in one line each. */
    private static final class OutputStreamsNull extends java.io.OutputStream {
        static final OutputStreamsNull INSTANCE = new OutputStreamsNull();

        @Override
        public void write(int b) {
            // discarded
        }
    }
}
