package dev.shelly.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A second JVM running a worker program on the test class path, for the cross-process tests:
 * its stdout is collected line by line; it prints {@code READY} once set up, starts on a
 * {@code go} line, and prints {@code EXIT} when it ends normally.
 */
final class ChildJvm {
    final Process process;
    final List<String> lines = new CopyOnWriteArrayList<>();
    private final CountDownLatch ready = new CountDownLatch(1);
    private final Thread reader;

    private ChildJvm(Process process) {
        this.process = process;
        this.reader = Thread.ofPlatform().start(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                    if (line.equals("READY")) {
                        ready.countDown();
                    }
                }
            } catch (IOException e) {
                // the process was killed
            }
        });
    }

    static ChildJvm launch(Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                main.getName()));
        command.addAll(List.of(args));
        return new ChildJvm(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
    }

    void awaitReady() throws InterruptedException {
        if (!ready.await(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the child JVM did not get ready: " + tail());
        }
    }

    void go() throws IOException {
        OutputStream in = process.getOutputStream();
        in.write("go\n".getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    void awaitLines(Predicate<String> which, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (lines.stream().filter(which).count() < count) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                boolean alive = process.isAlive();
                process.destroyForcibly();
                throw new AssertionError("the child printed " + lines.size() + " lines and "
                        + (alive ? "is still running" : "exited"));
            }
            Thread.sleep(5);
        }
    }

    void kill() throws InterruptedException {
        // Through its handle: Process.destroyForcibly would also close our end of its output,
        // losing lines it printed before it died that the reader has not taken yet.
        process.toHandle().destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
        reader.join(TimeUnit.SECONDS.toMillis(30));
    }

    void awaitExit() throws InterruptedException {
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the child JVM did not finish within 120 s: " + tail());
        }
        reader.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(process.exitValue()).as("exit code; output: %s", tail()).isZero();
        assertThat(lines).contains("EXIT");
    }

    /** The last lines it printed, for failure messages. */
    private List<String> tail() {
        return lines.size() > 20 ? lines.subList(lines.size() - 20, lines.size()) : lines;
    }
}
