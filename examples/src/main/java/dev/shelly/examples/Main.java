package dev.shelly.examples;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The entry point of {@code shelly-examples.jar}.
 *
 * <pre>
 * java -jar shelly-examples.jar list                 # the examples, one line each
 * java -jar shelly-examples.jar tools                # run one with its default task
 * java -jar shelly-examples.jar tools Weather in Oslo?   # ... or with yours
 * </pre>
 *
 * Exit codes: 0 when the example produced an answer; 1 when the run failed (the provider, an
 * agent's limit, an MCP server), with one line on stderr saying why; 2 for a usage error (an
 * unknown example, an invalid setting). {@code SHELLY_DEBUG=1} adds stack traces and debug logs.
 */
public final class Main {
    /** The run succeeded. */
    public static final int OK = 0;
    /** The run failed. */
    public static final int FAILED = 1;
    /** The command line or the environment was wrong. */
    public static final int USAGE = 2;

    private Main() {}

    /**
     * Runs the command line and exits with its code.
     *
     * @param args {@code list}, or an example's name and optionally a prompt
     */
    public static void main(String[] args) {
        Map<String, String> env = System.getenv();
        if (debug(env)) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "debug");
        }
        // Our own UTF-8 streams, so arrows and degrees show even where the platform's console
        // charset is plain ASCII (an unset locale in a container).
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int code = run(Examples.all(), args, env, in, out, err);
        out.flush();
        err.flush();
        // The MCP SDK and HTTP client leave non-daemon threads behind; the program is done.
        System.exit(code);
    }

    /**
     * Runs a command line against a set of examples, with an environment and streams of its own
     * (so tests need neither the process environment nor the console).
     *
     * @param examples the examples to choose from
     * @param args the command line
     * @param env the environment variables
     * @param out where the run's output goes
     * @param err where a failure's one-line reason goes
     * @return the exit code: {@link #OK}, {@link #FAILED} or {@link #USAGE}
     */
    public static int run(List<Example> examples, String[] args, Map<String, String> env, PrintStream out,
            PrintStream err) {
        return run(examples, args, env, new BufferedReader(new StringReader("")), out, err);
    }

    /**
     * Runs a command line with further input for interactive examples.
     *
     * @param examples the examples to choose from
     * @param args the command line
     * @param env the environment variables
     * @param in further input, line by line (standard input from the command line)
     * @param out where the run's output goes
     * @param err where a failure's one-line reason goes
     * @return the exit code: {@link #OK}, {@link #FAILED} or {@link #USAGE}
     */
    public static int run(List<Example> examples, String[] args, Map<String, String> env, BufferedReader in,
            PrintStream out, PrintStream err) {
        if (args.length == 0 || List.of("help", "-h", "--help").contains(args[0])) {
            usage(examples, out);
            return OK;
        }
        if (args[0].equals("list")) {
            list(examples, out);
            return OK;
        }
        Optional<Example> found = Examples.find(examples, args[0]);
        if (found.isEmpty()) {
            err.println("error: unknown example '" + args[0] + "'; known examples: "
                    + String.join(", ", examples.stream().map(Example::name).toList()));
            return USAGE;
        }
        Example example = found.get();
        String prompt = args.length > 1 ? String.join(" ", Arrays.asList(args).subList(1, args.length)).strip()
                : example.defaultPrompt();
        if (prompt.isEmpty()) {
            err.println("error: the prompt is empty; leave it out to run the example's own task");
            return USAGE;
        }
        ExampleModels models;
        ConsoleView view = new ConsoleView(out);
        ExampleRun run;
        try {
            models = ExampleModels.select(env);
            run = new ExampleRun(prompt, args.length > 1, in, models, view);
        } catch (IllegalArgumentException e) {
            err.println("error: " + ConsoleView.oneLine(e.getMessage()));
            return USAGE;
        }
        out.println(models.banner());
        if (args.length > 1 || !example.readsInput()) {
            prompt.lines().forEach(line -> out.println("> " + line));
        }
        run.keepFiles(env.containsKey("SHELLY_KEEP_FILES"));
        try {
            example.run(run);
            view.finish();
            if (run.usage().count() > 0) {
                out.println("[usage: " + run.usage().total().totalInputTokens() + " input and "
                        + run.usage().total().outputTokens() + " output tokens in " + run.usage().count()
                        + " model call" + (run.usage().count() == 1 ? "" : "s") + "]");
            }
            out.flush();
            return OK;
        } catch (Exception | LinkageError e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            view.finish();
            out.flush();
            err.println("error: " + Failures.reason(e, models));
            if (debug(env)) {
                e.printStackTrace(err);
            }
            return FAILED;
        } finally {
            run.cleanUp();
            out.flush();
        }
    }

    private static void usage(List<Example> examples, PrintStream out) {
        out.println("Shelly examples: small programs that show the Shelly SDK at work.");
        out.println();
        out.println("usage: java -jar shelly-examples.jar list                list the examples");
        out.println("       java -jar shelly-examples.jar <example> [prompt]  run one, on its own task or yours");
        out.println();
        list(examples, out);
        out.println();
        out.println("The model: the first of AZURE_OPENAI_API_KEY (with AZURE_OPENAI_ENDPOINT), ANTHROPIC_API_KEY,");
        out.println("OPENAI_API_KEY, XAI_API_KEY, GEMINI_API_KEY or OPENAI_BASE_URL");
        out.println("(an OpenAI-compatible server such as Ollama) that is set; SHELLY_MODEL names the model.");
        out.println("With none set, a scripted model runs the example without the network.");
    }

    private static void list(List<Example> examples, PrintStream out) {
        int width = examples.stream().mapToInt(e -> e.name().length()).max().orElse(0);
        for (Example e : examples) {
            out.println(String.format("%-" + (width + 2) + "s%s", e.name(), e.description()));
        }
    }

    private static boolean debug(Map<String, String> env) {
        String v = env.get("SHELLY_DEBUG");
        return v != null && !v.isBlank() && !v.equals("0") && !v.equalsIgnoreCase("false");
    }
}
