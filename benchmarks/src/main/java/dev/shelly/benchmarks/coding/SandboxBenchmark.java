package dev.shelly.benchmarks.coding;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.coding.CodingTools;
import dev.shelly.coding.Sandbox;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What confinement costs. Commands: {@code true} run through {@value CodingTools#RUN} in the
 * bubblewrap sandbox, unconfined ({@link Sandbox#NONE}), and started by a plain
 * {@link ProcessBuilder} (the floor), in a workspace of {@value #FILES} files (the sandbox walks
 * it for sensitive files before each command). Files: {@value CodingTools#READ} and
 * {@value CodingTools#WRITE} of a 4 KB file against {@link Files#readString},
 * {@link Files#writeString}, and the same atomic write (temporary file, force, rename) in plain
 * NIO. Needs {@code bwrap} (Debian's {@code bubblewrap}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SandboxBenchmark {
    static final int FILES = 500;

    private Path ws;
    private ToolBox sandboxed;
    private ToolBox unconfined;
    private String text;
    private final ToolContext ctx = ToolContext.of("bench");

    /** A workspace of {@value #FILES} small files in 25 folders, a .env among them. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        ws = Files.createTempDirectory("shelly-sandbox-bench");
        for (int d = 0; d < 25; d++) {
            Path dir = Files.createDirectories(ws.resolve("src/pkg" + d));
            for (int f = 0; f < FILES / 25; f++) {
                Files.writeString(dir.resolve("F" + f + ".java"), "class F" + f + " {}\n");
            }
        }
        Files.writeString(ws.resolve(".env"), "KEY=value\n");
        text = "x".repeat(4095) + "\n";
        Files.writeString(ws.resolve("data.txt"), text);
        sandboxed = CodingTools.builder(ws).build().toolBox();
        unconfined = CodingTools.builder(ws).sandbox(Sandbox.NONE).build().toolBox();
    }

    /** Removes the workspace. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        try (Stream<Path> s = Files.walk(ws)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private ToolResult call(ToolBox box, String tool, String args) {
        ToolResult r = box.call(new ToolCall("c", tool, args), ctx);
        if (r.isError()) {
            throw new IllegalStateException(r.text());
        }
        return r;
    }

    /** {@code true} in the bubblewrap sandbox. */
    @Benchmark
    public ToolResult trueSandboxed() {
        return call(sandboxed, CodingTools.RUN, "{\"program\":\"true\"}");
    }

    /** {@code true} through the tool, unconfined. */
    @Benchmark
    public ToolResult trueUnconfined() {
        return call(unconfined, CodingTools.RUN, "{\"program\":\"true\"}");
    }

    /** {@code true} started by a plain ProcessBuilder: the floor. */
    @Benchmark
    public int trueProcessBuilder() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("/usr/bin/true").directory(ws.toFile()).start();
        p.getOutputStream().close();
        p.getInputStream().readAllBytes();
        return p.waitFor();
    }

    /** fs_read of a 4 KB file. */
    @Benchmark
    public ToolResult readTool() {
        return call(sandboxed, CodingTools.READ, "{\"path\":\"data.txt\"}");
    }

    /** Files.readString of the same file. */
    @Benchmark
    public String readNio() throws IOException {
        return Files.readString(ws.resolve("data.txt"));
    }

    /** fs_write of a 4 KB file (atomically, through a temporary file). */
    @Benchmark
    public ToolResult writeTool() {
        return call(sandboxed, CodingTools.WRITE, "{\"path\":\"out.txt\",\"content\":\"" + text.strip() + "\"}");
    }

    /** The same content written as fs_write writes it, with plain NIO: temporary file, force, rename. */
    @Benchmark
    public Path writeNioAtomic() throws IOException {
        Path target = ws.resolve("out-atomic.txt");
        Path tmp = Files.createTempFile(ws, ".out-atomic.", ".tmp");
        try (var ch = java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            ch.force(true);
        }
        return Files.move(tmp, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    /** Files.writeString of the same content. */
    @Benchmark
    public Path writeNio() throws IOException {
        return Files.writeString(ws.resolve("out-nio.txt"), text);
    }
}
