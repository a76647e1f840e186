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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/**
 * One task board on Redis, three processes: this one runs the planner agent, which creates the
 * tasks; two worker processes (this program's {@link #main} in new JVMs) each run two worker
 * agents that claim and finish tasks through the same {@code tasks_*} tools as in
 * {@link TasksExample}. A claim is one Lua script in Redis, so no task is taken twice, across
 * processes too.
 *
 * <p>Redis: {@code REDIS_URL} when it is set; else, when {@code redis-server} is on the PATH, a
 * server of its own on a free port, stopped at the end; else the example says what it needs. The
 * run's keys carry a prefix of their own and are deleted when it ends.
 *
 * <p>Each worker process's lines are shown labelled with its name ({@code [worker p1] ...}). A
 * worker agent that fails says so in one line ({@code p1-w2 failed: <why>}; the stack trace is
 * logged at DEBUG, shown with {@code SHELLY_DEBUG=1}), its process exits with code 1, and the run
 * fails naming the process and that line.
 */
public final class RedisTasksExample implements Example {
    private static final String BOARD = "board";
    /** The logging level the programs set for SHELLY_DEBUG=1. */
    private static final String LOG_LEVEL = "org.slf4j.simpleLogger.defaultLogLevel";

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
        String url = run.models().environment().get("REDIS_URL");
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
            try {
                return planAndWork(run, redis, url, prefix);
            } finally {
                try {
                    redis.deleteKeys();
                } catch (RuntimeException e) {
                    run.note("[redis] the run's keys (prefix " + prefix + ") could not be deleted: " + e.getMessage());
                }
            }
        } finally {
            if (ownServer != null) {
                ownServer.destroy();
                ownServer.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static Message planAndWork(ExampleRun run, RedisBackends redis, String url, String prefix) throws Exception {
        TaskBoard board = new TaskBoard(redis.taskBackend(BOARD), Clock.systemUTC());
        Message plan = TasksExample.planner(run, board.tools()).run(run.prompt(), run.scope());

        List<Worker> workers = new ArrayList<>();
        for (String process : List.of("p1", "p2")) {
            ProcessBuilder pb = new ProcessBuilder(javaCommand(url, prefix, process)).redirectErrorStream(true);
            // The workers choose their model from the same settings as the planner.
            pb.environment().putAll(run.models().environment());
            if (run.models().scripted()) {
                pb.environment().put("SHELLY_PROVIDER", "scripted");
            }
            Worker w = new Worker(process, pb.start());
            w.relay = Thread.ofVirtual().start(() -> w.relay(run));
            workers.add(w);
        }
        for (Worker w : workers) {
            if (!w.process.waitFor(10, TimeUnit.MINUTES)) {
                w.process.destroyForcibly();
                throw new IllegalStateException("worker process " + w.name + " did not finish within 10 minutes");
            }
        }
        for (Worker w : workers) {
            w.relay.join();
        }
        for (Worker w : workers) {
            if (w.process.exitValue() != 0) {
                throw new IllegalStateException("worker process " + w.name + " exited with code " + w.process.exitValue()
                        + (w.failure == null ? "" : ": " + w.failure));
            }
        }
        TasksExample.printBoard(board, run);
        return plan;
    }

    /** A worker process, the thread showing its lines, and the first failure it reported. */
    private static final class Worker {
        final String name;
        final Process process;
        Thread relay;
        volatile String failure;

        Worker(String name, Process process) {
            this.name = name;
            this.process = process;
        }

        /** Shows the process's lines, labelled with its name, and keeps the first that reports a failure. */
        void relay(ExampleRun run) {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (failure == null && line.matches("\\S+ failed: .*")) {
                        failure = line;
                    }
                    run.note("[worker " + name + "] " + line);
                }
            } catch (IOException e) {
                run.note("[worker " + name + "] output lost: " + e.getMessage());
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
            boolean failed = false;
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<Message>> done = new ArrayList<>();
                for (String name : names) {
                    Agent worker = TasksExample.worker(name, run.model(TasksExample.workerScript()), tools, run);
                    done.add(pool.submit(() -> worker.run("Work through the pending tasks on the board.", run.scope())));
                }
                for (int i = 0; i < done.size(); i++) {
                    try {
                        done.get(i).get();
                    } catch (ExecutionException e) {
                        failed = true;
                        // One line says why; the trace is there for SHELLY_DEBUG=1.
                        out.println(names.get(i) + " failed: " + Failures.reason(e, models));
                        LoggerFactory.getLogger(RedisTasksExample.class).debug("worker {} failed", names.get(i), e.getCause());
                    }
                }
            }
            for (String name : names) {
                List<String> ids = board.list(TaskStatus.COMPLETED, name).stream().map(Task::id).toList();
                out.println(name + " finished " + (ids.isEmpty() ? "nothing" : String.join(", ", ids)));
            }
            if (failed) {
                out.flush();
                System.exit(1);
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

    private static List<String> javaCommand(String url, String prefix, String process) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        String level = System.getProperty(LOG_LEVEL);
        if (level != null) {
            command.add("-D" + LOG_LEVEL + "=" + level); // SHELLY_DEBUG=1 reaches the workers' logging too
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), RedisTasksExample.class.getName(), url,
                prefix, process));
        return command;
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
