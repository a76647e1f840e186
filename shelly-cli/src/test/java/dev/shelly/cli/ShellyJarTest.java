package dev.shelly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.cli.OpenAiEmulator.Call;
import dev.shelly.cli.OpenAiEmulator.Hold;
import dev.shelly.cli.OpenAiEmulator.Say;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The command as a user runs it: {@code bin/shelly} starts {@code target/shelly.jar} (built by the
 * package phase; this test runs in integration-test) as a child process, with piped standard
 * streams, in a fresh folder, against a local server that emulates OpenAI's Chat Completions
 * strictly. Nothing of the test's class path reaches the child.
 */
class ShellyJarTest {
    private static final Path LAUNCHER = Path.of(System.getProperty("shelly.launcher", "bin/shelly"));
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path project;
    @TempDir
    Path scratch;

    /** What a child process did. */
    record Run(int status, String out, String err) {}

    private static OpenAiEmulator.Answer model(JsonNode request) {
        String said = OpenAiEmulator.lastUserText(request);
        if (OpenAiEmulator.answersATool(request)) {
            return new Say("Done: note.txt holds hello.");
        }
        if (said.startsWith("write")) {
            return new Call("fs_write", "{\"path\":\"note.txt\",\"content\":\"hello\"}");
        }
        if (said.startsWith("slow")) {
            return new Hold();
        }
        return new Say("You said: " + said);
    }

    @Test
    void aNewUserInitsChatsApprovesAToolCallQuitsResumesAndScriptsARun() throws Exception {
        try (OpenAiEmulator server = OpenAiEmulator.start(ShellyJarTest::model)) {
            Map<String, String> env = Map.of("OPENAI_BASE_URL", server.baseUrl());

            Run init = shelly(env, "", "init", "--provider", "openai-compatible");
            assertThat(init.status()).as(init.err()).isZero();
            assertThat(init.out()).startsWith("created " + project.toRealPath().resolve(".shelly") + "\n");

            Run chat = shelly(env, "write hello into note.txt\ny\n/exit\n", "chat");
            assertThat(chat.status()).as(chat.err()).isZero();
            assertThat(chat.out()).contains("""
                    > write hello into note.txt
                    ? assistant wants to run fs_write {"path":"note.txt","content":"hello"}
                    allow? [y]es, [a]lways, [n]o, [e]dit: y
                      → fs_write {"path":"note.txt","content":"hello"}
                    """).contains("\nDone: note.txt holds hello.\n> /exit\n").doesNotContain("\u001b");
            assertThat(Files.readString(project.resolve("note.txt"))).isEqualTo("hello");

            Run resumed = shelly(env, "what did I ask?\n", "chat", "--continue");
            assertThat(resumed.status()).as(resumed.err()).isZero();
            assertThat(resumed.out()).contains(", 1 turn so far\n").contains("\nYou said: what did I ask?\n");
            JsonNode last = server.requests().getLast();
            assertThat(last.path("messages").toString()).contains("write hello into note.txt");

            Run run = shelly(env, "", "run", "hello", "there", "--json");
            assertThat(run.status()).as(run.err()).isZero();
            JsonNode record = Shown.JSON.readTree(run.out());
            assertThat(record.path("outcome").stringValue()).isEqualTo("answered");
            assertThat(record.path("reply").stringValue()).isEqualTo("You said: hello there");
            assertThat(record.path("usage").toString())
                    .isEqualTo("{\"input_tokens\":50,\"output_tokens\":7,\"cache_read_tokens\":0,"
                            + "\"cache_write_tokens\":0,\"total_tokens\":57}");

            Run paused = shelly(env, "", "run", "write it once more", "--json");
            assertThat(paused.status()).as(paused.err()).isEqualTo(3);
            assertThat(Shown.JSON.readTree(paused.out()).path("pending").get(0).path("name").stringValue())
                    .isEqualTo("fs_write");

            Run sessions = shelly(env, "", "sessions");
            assertThat(sessions.status()).as(sessions.err()).isZero();
            assertThat(sessions.out().lines()).hasSize(3);
            assertThat(sessions.out().lines().filter(l -> l.endsWith("waits for a decision"))).hasSize(1);

            assertThat(server.problems()).as("requests the emulated service refused").isEmpty();
        }
    }

    @Test
    void ctrlCStopsTheReplyBeingWrittenAndTheChatGoesOn() throws Exception {
        try (OpenAiEmulator server = OpenAiEmulator.start(ShellyJarTest::model)) {
            Map<String, String> env = Map.of("OPENAI_BASE_URL", server.baseUrl());
            assertThat(shelly(env, "", "init", "--provider", "openai-compatible").status()).isZero();

            Path out = scratch.resolve("out.txt");
            Process chat = start(env, out, "chat");
            try (OutputStream in = chat.getOutputStream()) {
                in.write("slow question\n".getBytes(StandardCharsets.UTF_8));
                in.flush();
                await(() -> server.requests().size() == 1, "the slow request");
                assertThat(new ProcessBuilder("kill", "-INT", Long.toString(chat.pid())).start().waitFor()).isZero();
                await(() -> Files.readString(out).contains("[cancelled]"), "the turn to be cancelled");
                in.write("quick one\n/exit\n".getBytes(StandardCharsets.UTF_8));
            }
            assertThat(chat.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            String text = Files.readString(out);
            assertThat(chat.exitValue()).as(text).isZero();
            assertThat(text).contains("> slow question\n[cancelled]\n> quick one\nYou said: quick one\n> /exit\n");
            assertThat(server.problems()).isEmpty();
        }
    }

    /** {@code env --default-signal=INT} when this machine's env has it, else nothing. */
    private static final List<String> DEFAULT_SIGINT = defaultSigint();

    private static List<String> defaultSigint() {
        try {
            Process probe = new ProcessBuilder("env", "--default-signal=INT", "true").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return probe.waitFor(10, TimeUnit.SECONDS) && probe.exitValue() == 0
                    ? List.of("env", "--default-signal=INT") : List.of();
        } catch (IOException | InterruptedException e) {
            return List.of();
        }
    }

    private Run shelly(Map<String, String> env, String input, String... args) throws Exception {
        Path out = scratch.resolve("out.txt");
        Process process = start(env, out, args);
        try (OutputStream in = process.getOutputStream()) {
            in.write(input.getBytes(StandardCharsets.UTF_8));
        }
        if (!process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("shelly " + String.join(" ", args) + " did not end within " + WAIT);
        }
        return new Run(process.exitValue(), Files.readString(out), Files.readString(scratch.resolve("err.txt")));
    }

    /**
     * Starts {@code bin/shelly} in the project, with a clean environment, output to files. A build
     * started in the background has SIGINT ignored, and a child inherits that, so the launcher is
     * started with SIGINT at its default where {@code env --default-signal} can do it, as a shell
     * in a terminal would start it.
     */
    private Process start(Map<String, String> env, Path out, String... args) throws IOException {
        List<String> command = new ArrayList<>(DEFAULT_SIGINT);
        command.add(LAUNCHER.toAbsolutePath().toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(project.toFile())
                .redirectOutput(out.toFile()).redirectError(scratch.resolve("err.txt").toFile());
        builder.environment().clear();
        builder.environment().put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("HOME", scratch.toString());
        builder.environment().putAll(env);
        return builder.start();
    }

    /** A condition that may throw while it is not yet true. */
    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void await(Condition condition, String what) throws Exception {
        long end = System.nanoTime() + WAIT.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }
}
