package dev.shelly.redis;

import dev.shelly.modeladapter.RateLimit;
import dev.shelly.state.tasks.Task;
import dev.shelly.state.tasks.TaskBoard;
import dev.shelly.state.tasks.TaskStatus;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The other JVM of {@link CrossProcessTest}: connects, prints {@code READY}, waits for a line on
 * stdin, then works.
 *
 * <ul>
 *   <li>{@code work <url> <prefix> <board> <jvm> <threads> <pauseMillis> [hold]}: threads named
 *       {@code <jvm>-<n>} claim tasks until none is pending, completing each with its name as the
 *       result, and print {@code CLAIM <id> <agent>} for each claim; with {@code hold} true, thread
 *       0 keeps its third claim without finishing it and prints {@code HOLD <id> <agent>}.</li>
 *   <li>{@code drain <url> <prefix> <board> <jvm> <threads> <pauseMillis> <leaseMillis> <hold>}:
 *       like {@code work} on a board whose claims are leases of {@code leaseMillis}, but each
 *       thread goes on until every task is final (a lapsed claim of another JVM comes back), a
 *       write that fails while Redis is unavailable is tried again, and each acknowledged
 *       completion is printed {@code DONE <id> <agent>}. With {@code hold} true, thread 0 keeps its
 *       third claim without ever finishing it and prints {@code HOLD <id> <agent>}.</li>
 *   <li>{@code limit <url> <prefix> <name> <requestsPerMinute> <count>}: takes {@code count}
 *       rate-limit slots and prints {@code SLOT <startMicros>} for each.</li>
 * </ul>
 */
public final class BoardWorkerMain {
    private BoardWorkerMain() {}

    /**
     * Runs one mode.
     *
     * @param args see the class comment
     * @throws Exception when the work fails; the exit code is then not 0
     */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        try (RedisBackends redis = RedisBackends.builder(args[1]).keyPrefix(args[2]).build()) {
            if (args[0].equals("work")) {
                TaskBoard board = new TaskBoard(redis.taskBackend(args[3]), Clock.systemUTC());
                int threads = Integer.parseInt(args[5]);
                long pause = Long.parseLong(args[6]);
                boolean hold = args.length > 7 && Boolean.parseBoolean(args[7]);
                ready(out);
                List<Thread> workers = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    String agent = args[4] + "-" + t;
                    boolean holder = hold && t == 0;
                    workers.add(Thread.ofPlatform().start(() -> work(board, agent, pause, holder, out)));
                }
                for (Thread w : workers) {
                    w.join();
                }
            } else if (args[0].equals("drain")) {
                dev.shelly.state.tasks.TaskBackend backend = redis.taskBackend(args[3]);
                TaskBoard board = new TaskBoard(backend, Clock.systemUTC(), java.time.Duration.ofMillis(Long.parseLong(args[7])));
                int threads = Integer.parseInt(args[5]);
                long pause = Long.parseLong(args[6]);
                boolean hold = Boolean.parseBoolean(args[8]);
                ready(out);
                List<Thread> workers = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    String agent = args[4] + "-" + t;
                    boolean holder = hold && t == 0;
                    workers.add(Thread.ofPlatform().start(() -> drain(board, backend, agent, pause, holder, out)));
                }
                for (Thread w : workers) {
                    w.join();
                }
            } else if (args[0].equals("window")) {
                startInWindows(redis.rateLimiter(args[3], RateLimit.requestsPerMinute(Integer.parseInt(args[4])),
                        Long.parseLong(args[5]) * 1000), Integer.parseInt(args[6]), Integer.parseInt(args[7]),
                        Integer.parseInt(args[8]), out);
            } else {
                RedisRateLimiter limiter = (RedisRateLimiter) redis.rateLimiter(args[3], RateLimit.requestsPerMinute(Integer.parseInt(args[4])));
                int count = Integer.parseInt(args[5]);
                ready(out);
                for (int i = 0; i < count; i++) {
                    out.println("SLOT " + limiter.reserve().startMicros());
                }
            }
        }
        out.println("EXIT");
    }

    /**
     * Threads that each acquire and start requests, a random 0 to {@code jitterMillis} late after
     * each slot (a scheduler's or a GC's delay), printing {@code START <wall-clock micros> <slot micros>}.
     */
    private static void startInWindows(RedisRateLimiter limiter, int threads, int each, int jitterMillis, PrintStream out)
            throws Exception {
        ready(out);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < each; i++) {
                        RedisRateLimiter.Slot slot = limiter.reserve();
                        if (!slot.delay().isZero()) {
                            Thread.sleep(slot.delay());
                        }
                        Thread.sleep(java.util.concurrent.ThreadLocalRandom.current().nextInt(jitterMillis + 1));
                        java.time.Instant now = java.time.Instant.now();
                        out.println("START " + (now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000) + " "
                                + slot.startMicros());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        for (Thread w : workers) {
            w.join();
        }
    }

    private static void drain(TaskBoard board, dev.shelly.state.tasks.TaskBackend backend, String agent, long pause,
            boolean holder, PrintStream out) {
        int claims = 0;
        while (true) {
            Optional<Task> claimed;
            try {
                claimed = board.claimNext(agent);
                if (claimed.isEmpty()) {
                    if (backend.withStatus(TaskStatus.IN_PROGRESS, 1).isEmpty()
                            && backend.withStatus(TaskStatus.PENDING, 1).isEmpty()) {
                        return;
                    }
                    Thread.sleep(100); // claims of others still run; one of them may lapse
                    continue;
                }
            } catch (RedisUnavailableException e) {
                continue;
            } catch (InterruptedException e) {
                return;
            }
            String id = claimed.get().id();
            out.println("CLAIM " + id + " " + agent);
            if (holder && ++claims == 3) {
                out.println("HOLD " + id + " " + agent);
                try {
                    Thread.sleep(Long.MAX_VALUE);
                } catch (InterruptedException e) {
                    return;
                }
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                return;
            }
            while (true) {
                try {
                    board.update(id, TaskStatus.COMPLETED, agent, agent);
                    out.println("DONE " + id + " " + agent);
                    break;
                } catch (RedisUnavailableException e) {
                    // unacknowledged: the next try finds it completed already, or completes it
                    if (completedBy(board, id, agent)) {
                        out.println("DONE " + id + " " + agent);
                        break;
                    }
                } catch (dev.shelly.state.tasks.TaskStateException e) {
                    break; // its lease lapsed and another worker has it: refused, as it must be
                }
            }
        }
    }

    private static boolean completedBy(TaskBoard board, String id, String agent) {
        try {
            Optional<Task> now = board.get(id);
            return now.isPresent() && now.get().status() == TaskStatus.COMPLETED && agent.equals(now.get().result());
        } catch (RedisUnavailableException e) {
            return false;
        }
    }

    private static void ready(PrintStream out) throws Exception {
        out.println("READY");
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    }

    private static void work(TaskBoard board, String agent, long pause, boolean holder, PrintStream out) {
        int claims = 0;
        while (true) {
            Optional<Task> claimed = board.claimNext(agent);
            if (claimed.isEmpty()) {
                return;
            }
            out.println("CLAIM " + claimed.get().id() + " " + agent);
            if (holder && ++claims == 3) {
                out.println("HOLD " + claimed.get().id() + " " + agent);
                try {
                    Thread.sleep(Long.MAX_VALUE);
                } catch (InterruptedException e) {
                    return;
                }
            }
            if (pause > 0) {
                try {
                    Thread.sleep(pause);
                } catch (InterruptedException e) {
                    return;
                }
            }
            board.update(claimed.get().id(), TaskStatus.COMPLETED, agent, agent);
        }
    }
}
