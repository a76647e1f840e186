package dev.shelly.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real redis-server for tests: started on a free port of localhost, waited for until it answers
 * PING, stopped by {@link #close()}. It can be stopped and started again on the same port, to
 * test what clients do while it is away. Needs {@code redis-server} on the PATH (the Debian package;
 * {@code .ci/run} installs it).
 */
public final class RedisServer implements AutoCloseable {
    private final int port;
    private final Path dataDir;
    private final List<String> extraArgs;
    private Process process;

    private RedisServer(int port, Path dataDir, List<String> extraArgs) {
        this.port = port;
        this.dataDir = dataDir;
        this.extraArgs = extraArgs;
    }

    /**
     * Starts a server without persistence, with keyspace notifications off.
     *
     * @return the running server
     */
    public static RedisServer start() {
        return start(null);
    }

    /**
     * Starts a server; with a data folder it keeps an append-only file there (fsync on every
     * write), so that its data survives {@link #stop()} and {@link #restart()}.
     *
     * @param dataDir where to keep the data, or null for none
     * @return the running server
     */
    public static RedisServer start(Path dataDir) {
        List<String> args = dataDir == null ? List.of("--save", "", "--appendonly", "no")
                : List.of("--save", "", "--appendonly", "yes", "--appendfsync", "always", "--dir", dataDir.toString());
        RedisServer server = new RedisServer(freePort(), dataDir, args);
        server.restart();
        return server;
    }

    /** The URL to connect to, e.g. {@code redis://127.0.0.1:40123}. */
    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    /** The port. */
    public int port() {
        return port;
    }

    /** Starts the server (again) on its port and waits until it answers PING. */
    public void restart() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("redis-server on port " + port + " is running already");
        }
        List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--daemonize", "no", "--protected-mode", "no", "--loglevel", "warning"));
        command.addAll(extraArgs);
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            pb.redirectOutput(dataDir == null ? ProcessBuilder.Redirect.DISCARD
                    : ProcessBuilder.Redirect.appendTo(dataDir.resolve("redis.log").toFile()));
            process = pb.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start redis-server (is the redis-server package installed? "
                    + ".ci/run installs it): " + e.getMessage(), e);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!answersPing()) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server on port " + port + " exited with " + process.exitValue());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("redis-server on port " + port + " did not answer PING within 20 s");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for redis-server", e);
            }
        }
    }

    /** Stops the server (SIGTERM: it writes its append-only file first) and waits until it exited. */
    public void stop() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    @Override
    public void close() {
        stop();
    }

    private boolean answersPing() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            s.setSoTimeout(1000);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[7];
            int n = in.readNBytes(buf, 0, 7);
            return n == 7 && new String(buf, StandardCharsets.US_ASCII).equals("+PONG\r\n");
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port: " + e.getMessage(), e);
        }
    }

    /** Deletes a data folder a test made. */
    static void deleteQuietly(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temp folder; JUnit's @TempDir cleans up what is left
        }
    }
}
