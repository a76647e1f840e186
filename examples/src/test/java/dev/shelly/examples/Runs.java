package dev.shelly.examples;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** Runs the examples' command line in this JVM and captures what it printed. */
final class Runs {
    private Runs() {}

    /**
     * What one command line did.
     *
     * @param exit the exit code
     * @param out what went to stdout
     * @param err what went to stderr
     */
    record Result(int exit, String out, String err) {
        List<String> lines() {
            return out.lines().toList();
        }

        List<String> errLines() {
            return err.lines().toList();
        }
    }

    static Result run(Map<String, String> env, String... args) {
        return run(Examples.all(), env, args);
    }

    static Result run(List<Example> examples, Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            exit = Main.run(examples, args, env, o, e);
        }
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
