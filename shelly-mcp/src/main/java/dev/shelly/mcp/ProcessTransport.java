package dev.shelly.mcp;

import dev.shelly.tools.internal.ChildProcesses;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpTransportException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The MCP stdio transport of a client: starts the server as a subprocess, writes one JSON-RPC
 * message per line to its stdin and reads its stdout likewise.
 *
 * <p>Unlike the SDK's transport it sets the working directory and a minimal environment, keeps
 * reading after a stray non-JSON line on stdout, keeps the last lines of stderr for error
 * messages, reports the process's end at once through {@link #ended()}, and stops the process
 * in bounded time: stdin is closed, then the process tree gets SIGTERM, then SIGKILL.
 *
 * <p>The end is noticed by watching the process itself ({@link Process#onExit()}), not the end of
 * its stdout: a crashed server whose child still holds its stdout open is reported within tens of
 * milliseconds. The process tree is recorded while the server runs (at start, after every message
 * in either direction, and every {@link #TREE_REFRESH}), so that {@link #terminate()} also kills
 * descendants that a crashed server left behind, which no longer appear among its descendants.
 */
final class ProcessTransport implements McpClientTransport {
    private static final Logger log = LoggerFactory.getLogger(ProcessTransport.class);
    private static final int MAX_LINE_BYTES = 16 * 1024 * 1024;
    private static final int STDERR_LINES = 20;
    private static final int MAX_STDERR_LINE = 500;
    /**
     * How long a failed write waits for the server's exit to be reported. A server that exits
     * closes its stdin, so writing to it can fail ("Broken pipe") before this JVM has reaped it
     * and read its last stderr lines; the exit code and those lines say what went wrong. Only a
     * server that closes its stdin and keeps running makes a write wait this long.
     */
    private static final Duration EXIT_REPORT = Duration.ofSeconds(5);
    /** How long an exited server's stderr may stay open (held by a child it left behind) before its end is reported without it. */
    private static final Duration STDERR_DRAIN = Duration.ofSeconds(2);
    /**
     * After the process exits, how long stderr may stay quiet before its end is reported without
     * waiting for its end of file (a child it left behind may hold stderr open).
     */
    private static final Duration STDERR_QUIET = Duration.ofMillis(50);
    /** How often the record of the server's process tree is refreshed while it runs. */
    static final Duration TREE_REFRESH = Duration.ofSeconds(1);
    /** What happened to a server this client stopped. */
    static final String CLOSED = "was disconnected (the client was closed)";

    private final McpEndpoint.Stdio endpoint;
    private final McpJsonMapper mapper;
    private final String label;
    private final Duration grace;
    private final Consumer<String> stderrListener;
    private final CompletableFuture<String> ended = new CompletableFuture<>();
    private final ReentrantLock stderrLock = new ReentrantLock();
    private final Deque<String> stderrTail = new ArrayDeque<>();
    private final AtomicBoolean terminating = new AtomicBoolean();
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();
    private final ExecutorService writer = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("mcp-stdin").factory());
    private final Scheduler writes = Schedulers.fromExecutor(writer);
    private volatile Process process;
    private volatile Thread stderrReader;
    private volatile Thread stdoutReader;
    /** When either output stream last gave bytes. */
    private volatile long lastOutputNanos;
    /** Every descendant of the server seen while it ran; dead ones are skipped when stopping. */
    private final Set<ProcessHandle> tree = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final AtomicBoolean treeRefreshPending = new AtomicBoolean();

    ProcessTransport(McpEndpoint.Stdio endpoint, McpJsonMapper mapper, String label, Duration grace,
            Consumer<String> stderrListener) {
        this.endpoint = endpoint;
        this.mapper = mapper;
        this.label = label;
        this.grace = grace;
        this.stderrListener = stderrListener;
    }

    /**
     * Completes when the server can no longer answer, with what happened to it, to follow
     * "MCP server 'x' ": "could not be started (...): ...", "exited with code 3", or "was
     * disconnected (the client was closed)". An exit completes it only once the exit code is known
     * and stderr is drained; {@link #terminate()} completes it at once. The last stderr lines are
     * in {@link #stderrSummary()}.
     *
     * @return the future
     */
    CompletableFuture<String> ended() {
        return ended;
    }

    /** The process, or null before it started. */
    Process process() {
        return process;
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        return Mono.fromRunnable(() -> start(handler));
    }

    private void start(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        ProcessBuilder builder = new ProcessBuilder(endpoint.commandLine());
        Map<String, String> env = builder.environment();
        if (!endpoint.inheritEnvironment()) {
            ChildProcesses.keepInherited(env);
        }
        env.putAll(endpoint.env());
        if (endpoint.workingDirectory() != null) {
            builder.directory(endpoint.workingDirectory().toFile());
        }
        Process started;
        try {
            started = builder.start();
        } catch (IOException e) {
            String why = "could not be started (" + String.join(" ", endpoint.commandLine()) + "): " + e.getMessage();
            ended.complete(why);
            throw new McpTransportException("MCP server '" + label + "' " + why, e);
        }
        process = started;
        log.debug("MCP server '{}' started as process {}", label, started.pid());
        recordTree(started);
        stderrReader = Thread.ofVirtual().name("mcp-stderr-" + label).start(() -> readStderr(started));
        stdoutReader = Thread.ofVirtual().name("mcp-stdout-" + label).start(() -> readStdout(started, handler));
        started.onExit().thenAcceptAsync(this::processEnded,
                runnable -> Thread.ofVirtual().name("mcp-exit-" + label).start(runnable));
        Thread.ofVirtual().name("mcp-tree-" + label).start(() -> watchTree(started));
    }

    /** Refreshes the record of the process tree every {@link #TREE_REFRESH} until the process exits. */
    private void watchTree(Process p) {
        try {
            while (!p.waitFor(TREE_REFRESH.toMillis(), TimeUnit.MILLISECONDS)) {
                recordTree(p);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Adds the process's current descendants to the record. */
    private void recordTree(Process p) {
        try {
            p.descendants().forEach(tree::add);
        } catch (RuntimeException e) {
            log.debug("listing the processes of MCP server '{}': {}", label, e.toString());
        }
    }

    /** Refreshes the record of the process tree soon, on another thread; requests made meanwhile are merged. */
    private void recordTreeSoon() {
        Process p = process;
        if (p != null && p.isAlive() && treeRefreshPending.compareAndSet(false, true)) {
            Thread.ofVirtual().start(() -> {
                treeRefreshPending.set(false);
                recordTree(p);
            });
        }
    }

    private void readStdout(Process p, Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        try (InputStream in = p.getInputStream()) {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            boolean tooLong = false;
            byte[] buffer = new byte[8192];
            int n;
            while ((n = in.read(buffer)) >= 0) {
                lastOutputNanos = System.nanoTime();
                int start = 0;
                for (int i = 0; i < n; i++) {
                    if (buffer[i] != '\n') {
                        continue;
                    }
                    if (!tooLong) {
                        line.write(buffer, start, i - start);
                        deliver(line.toString(StandardCharsets.UTF_8), handler);
                    }
                    line.reset();
                    tooLong = false;
                    start = i + 1;
                }
                if (!tooLong) {
                    line.write(buffer, start, n - start);
                    if (line.size() > MAX_LINE_BYTES) {
                        log.warn("MCP server '{}' wrote a message longer than {} bytes; it is dropped", label, MAX_LINE_BYTES);
                        line.reset();
                        tooLong = true;
                    }
                }
            }
        } catch (IOException e) {
            if (!terminating.get()) {
                log.debug("reading from MCP server '{}' stopped: {}", label, e.toString());
            }
        }
        log.debug("MCP server '{}' closed its stdout", label);
    }

    private void deliver(String line, Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        String text = line.strip();
        if (text.isEmpty()) {
            return;
        }
        recordTreeSoon();
        McpSchema.JSONRPCMessage message;
        try {
            message = McpSchema.deserializeJsonRpcMessage(mapper, text);
        } catch (Exception e) {
            log.warn("MCP server '{}' wrote a line to stdout that is not JSON-RPC; ignored: {}", label, clip(text));
            return;
        }
        handler.apply(Mono.just(message)).subscribe(ignored -> { },
                e -> log.warn("MCP server '{}': handling a message failed: {}", label, e.toString()));
    }

    private void readStderr(Process p) {
        try (InputStream in = p.getErrorStream()) {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            int b;
            while ((b = in.read()) >= 0) {
                if (b == '\n') {
                    stderrLine(line.toString(StandardCharsets.UTF_8));
                    line.reset();
                } else if (line.size() < MAX_LINE_BYTES) {
                    line.write(b);
                }
            }
            if (line.size() > 0) {
                stderrLine(line.toString(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            log.debug("reading stderr of MCP server '{}' stopped: {}", label, e.toString());
        }
    }

    private void stderrLine(String raw) {
        lastOutputNanos = System.nanoTime();
        String line = raw.stripTrailing();
        log.debug("MCP server '{}' stderr: {}", label, line);
        stderrLock.lock();
        try {
            stderrTail.addLast(clip(line));
            while (stderrTail.size() > STDERR_LINES) {
                stderrTail.removeFirst();
            }
        } finally {
            stderrLock.unlock();
        }
        if (stderrListener != null) {
            try {
                stderrListener.accept(line);
            } catch (RuntimeException e) {
                log.warn("the stderr listener of MCP server '{}' failed: {}", label, e.toString());
            }
        }
    }

    /**
     * The process has exited: wait for its last messages on stdout and its last stderr lines
     * (until both streams end, at most {@link #STDERR_DRAIN}), then say so. So an answer written
     * just before the exit is still delivered before the exit is reported. Only when a process of
     * its tree is still alive, and may hold the streams open, is their end not awaited once they
     * have been quiet for {@link #STDERR_QUIET}: without such a process, the end of file is
     * certain and only the readers' scheduling can delay it, which on a loaded machine can take
     * longer than any quiet period.
     */
    private void processEnded(Process p) {
        long exitNanos = System.nanoTime();
        long deadline = exitNanos + STDERR_DRAIN.toNanos();
        boolean interrupted = false;
        while (stderrReader.isAlive() || stdoutReader.isAlive()) {
            long now = System.nanoTime();
            long quietSince = Math.max(exitNanos, lastOutputNanos);
            boolean quiet = now - quietSince >= STDERR_QUIET.toNanos() && tree.stream().anyMatch(ProcessHandle::isAlive);
            if (quiet || now - deadline >= 0) {
                break;
            }
            try {
                (stderrReader.isAlive() ? stderrReader : stdoutReader).join(Duration.ofMillis(10));
            } catch (InterruptedException e) {
                interrupted = true;
                break;
            }
        }
        ended.complete(terminating.get() ? CLOSED : "exited with code " + p.exitValue());
        log.debug("MCP server '{}' process {} ended with code {}", label, p.pid(), p.exitValue());
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The last lines the server wrote to stderr, for an error message. */
    String stderrSummary() {
        stderrLock.lock();
        try {
            return stderrTail.isEmpty() ? "" : "; its last lines on stderr: " + String.join(" | ", stderrTail);
        } finally {
            stderrLock.unlock();
        }
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        return Mono.<Void>fromRunnable(() -> write(message)).subscribeOn(writes);
    }

    private void write(McpSchema.JSONRPCMessage message) {
        Process p = process;
        if (p == null || terminating.get() || ended.isDone()) {
            throw new McpTransportException("MCP server '" + label + "' " + ended.getNow("is not running"));
        }
        recordTreeSoon();
        byte[] json;
        try {
            json = mapper.writeValueAsBytes(message);
        } catch (IOException e) {
            throw new McpTransportException("cannot encode a message for MCP server '" + label + "': " + e.getMessage(), e);
        }
        try {
            OutputStream out = p.getOutputStream();
            out.write(json);
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            throw new McpTransportException(writeFailure(e), e);
        }
    }

    /**
     * Why a write failed: when the server has exited, its exit and last stderr lines rather than
     * the broken pipe that came first. Waits up to {@link #EXIT_REPORT} for the exit to be
     * reported, unless this client is stopping the server.
     */
    private String writeFailure(IOException e) {
        if (!terminating.get()) {
            try {
                ended.get(TimeUnit.NANOSECONDS.convert(EXIT_REPORT), TimeUnit.NANOSECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException notEnded) {
                log.debug("writing to MCP server '{}' failed ({}) and its process has not ended", label, e.toString());
            }
        }
        String end = ended.getNow(null);
        return end != null
                ? "MCP server '" + label + "' " + end + stderrSummary()
                : "cannot write to MCP server '" + label + "': " + e.getMessage();
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return mapper.convertValue(data, typeRef);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.<Void>fromRunnable(this::terminate).subscribeOn(Schedulers.boundedElastic());
    }

    /**
     * Stops the server and waits for it: closes its stdin, waits, sends SIGTERM to the process
     * and its descendants, waits, then kills them. Each wait is the grace period. Safe to call
     * more than once and from several threads.
     */
    void terminate() {
        if (!terminating.compareAndSet(false, true)) {
            awaitTermination();
            return;
        }
        ended.complete(CLOSED);
        try {
            stop();
        } finally {
            terminated.complete(null);
        }
    }

    /** Waits, boundedly, for the thread that is stopping the server. */
    private void awaitTermination() {
        try {
            long graceMillis = TimeUnit.MILLISECONDS.convert(grace);
            terminated.get(graceMillis > (Long.MAX_VALUE - 1000) / 3 ? Long.MAX_VALUE : graceMillis * 3 + 1000,
                    TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.debug("waiting for MCP server '{}' to stop: {}", label, e.toString());
        }
    }

    private void stop() {
        boolean interrupted = Thread.interrupted();
        try {
            Process p = process;
            if (p == null) {
                return;
            }
            recordTree(p);
            List<ProcessHandle> descendants = tree.stream().filter(ProcessHandle::isAlive).toList();
            try {
                p.getOutputStream().close();
            } catch (IOException e) {
                log.debug("closing stdin of MCP server '{}': {}", label, e.toString());
            }
            if (!interrupted) {
                boolean exited = exited(p);
                if (!exited || descendants.stream().anyMatch(ProcessHandle::isAlive)) {
                    log.debug("MCP server '{}' {} after its stdin closed; sending SIGTERM", label,
                            exited ? "left processes behind" : "did not exit");
                    if (!exited) {
                        p.destroy();
                    }
                    descendants.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroy);
                    if (!gone(p, descendants)) {
                        log.warn("MCP server '{}' {} after SIGTERM within {} ms; killing {}", label,
                                exited ? "left processes that did not exit" : "did not exit", grace.toMillis(),
                                exited ? "them" : "it");
                    }
                }
            }
            kill(p, descendants);
        } catch (InterruptedException e) {
            interrupted = true;
            Process p = process;
            tree.forEach(ProcessHandle::destroyForcibly);
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        } finally {
            writer.shutdownNow();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Kills what is left of the process tree and waits, up to the grace period, until it is gone. */
    private void kill(Process p, List<ProcessHandle> descendants) throws InterruptedException {
        p.destroyForcibly();
        descendants.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        long deadline = System.nanoTime() + TimeUnit.NANOSECONDS.convert(grace);
        p.waitFor(TimeUnit.NANOSECONDS.convert(grace), TimeUnit.NANOSECONDS);
        for (ProcessHandle child : descendants) {
            while (child.isAlive() && deadline - System.nanoTime() > 0) {
                Thread.sleep(10);
            }
        }
    }

    /** Waits, up to the grace period, until the process and the descendants are gone. */
    private boolean gone(Process p, List<ProcessHandle> descendants) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.NANOSECONDS.convert(grace);
        if (!p.waitFor(TimeUnit.NANOSECONDS.convert(grace), TimeUnit.NANOSECONDS)) {
            return false;
        }
        for (ProcessHandle child : descendants) {
            try {
                child.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                return false;
            } catch (ExecutionException e) {
                log.debug("waiting for a process of MCP server '{}': {}", label, e.toString());
            }
        }
        return true;
    }

    private boolean exited(Process p) throws InterruptedException {
        return p.waitFor(TimeUnit.NANOSECONDS.convert(grace), TimeUnit.NANOSECONDS);
    }

    private static String clip(String text) {
        return text.length() <= MAX_STDERR_LINE ? text : text.substring(0, MAX_STDERR_LINE) + "...";
    }
}
