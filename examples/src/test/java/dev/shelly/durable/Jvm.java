package dev.shelly.durable;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A child JVM running {@link CrashWorkerMain} on the test class path: its stdout collected line
 * by line, its stderr in a file beside the test's data.
 */
final class Jvm {
    final Process process;
    final List<String> lines = new CopyOnWriteArrayList<>();
    private final Thread reader;
    private final Path errors;

    private Jvm(Process process, Path errors) {
        this.process = process;
        this.errors = errors;
        this.reader = Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // the process was killed
            }
        });
    }

    static Jvm launch(Map<String, String> env, Path errors, List<String> args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", CrashWorkerMain.class.getName()));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(errors.toFile());
        builder.environment().putAll(env);
        return new Jvm(builder.start(), errors);
    }

    /** Waits until every line the predicate picks is there, or the process ends, or the time runs out. */
    boolean awaitLines(Predicate<List<String>> done, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!done.test(lines)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                return done.test(lines);
            }
            Thread.sleep(10);
        }
        return true;
    }

    /** Kills it as {@code kill -9} does. */
    void kill() throws InterruptedException {
        // Through its handle: Process.destroyForcibly would also close our end of its output,
        // losing lines it printed before it died that the reader has not taken yet.
        process.toHandle().destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
        reader.join(TimeUnit.SECONDS.toMillis(10));
    }

    /** Waits for it to end by itself; false when it did not within the time (it is then killed). */
    boolean awaitExit(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            kill();
            return false;
        }
        reader.join(TimeUnit.SECONDS.toMillis(10));
        return true;
    }

    /** The lines that start with a word and name a session: {@code WORD <session> ...}, without the two. */
    List<String> of(String word, String session) {
        String prefix = word + " " + session + " ";
        List<String> found = new ArrayList<>();
        for (String l : lines) {
            if (l.startsWith(prefix)) {
                found.add(l.substring(prefix.length()));
            } else if (l.equals(word + " " + session)) {
                found.add("");
            }
        }
        return found;
    }

    /** What it wrote to stderr, for a failure message. */
    String errors() {
        try {
            String all = java.nio.file.Files.readString(errors);
            return all.length() > 4000 ? all.substring(all.length() - 4000) : all;
        } catch (IOException e) {
            return "(no stderr: " + e + ")";
        }
    }
}
