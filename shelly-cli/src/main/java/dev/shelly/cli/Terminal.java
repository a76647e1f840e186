package dev.shelly.cli;

import java.io.BufferedReader;
import java.io.Console;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * What a command runs with: its input and output streams, the environment, the working
 * directory, and whether a person sits at a terminal. The process's own in {@link #system()};
 * tests give their own.
 *
 * @param in the lines a person (or a pipe) types
 * @param out replies, listings and {@code run --json}
 * @param err errors and, for {@code run}, the progress of a turn
 * @param env the environment variables
 * @param cwd the working directory, absolute
 * @param interactive whether input and output are a terminal: then {@code chat} shows a prompt
 *     and does not echo what was typed
 * @param styled whether output may carry ANSI styles: a terminal whose {@code TERM} is set and
 *     not {@code dumb}, without {@code NO_COLOR}
 * @param interrupts how Ctrl-C reaches a running turn
 */
record Terminal(BufferedReader in, PrintStream out, PrintStream err, Map<String, String> env, Path cwd,
        boolean interactive, boolean styled, Interrupts interrupts) {

    private static final String DIM = "\u001b[2m";
    private static final String BOLD = "\u001b[1m";
    private static final String RED = "\u001b[31m";
    private static final String RESET = "\u001b[0m";

    Terminal {
        env = Map.copyOf(env);
        cwd = cwd.toAbsolutePath().normalize();
    }

    /**
     * The process's streams and environment. Output is written in the console's charset on a
     * terminal and in UTF-8 into a pipe or file. Styles are used only on a terminal: on a JDK that
     * cannot tell a pipe from a terminal (JDK 22 gives a console to a pipe too),
     * {@code bin/shelly} says which it is with {@code -Dshelly.terminal=true} or {@code false}.
     */
    static Terminal system() {
        Console console = System.console();
        Charset charset = console != null ? console.charset() : StandardCharsets.UTF_8;
        Map<String, String> env = System.getenv();
        String told = System.getProperty("shelly.terminal");
        boolean interactive = told != null ? Boolean.parseBoolean(told) : console != null;
        return new Terminal(new BufferedReader(new InputStreamReader(System.in, charset)),
                new PrintStream(new FileOutputStream(FileDescriptor.out), true, charset),
                new PrintStream(new FileOutputStream(FileDescriptor.err), true, charset),
                env, Path.of("").toAbsolutePath(), interactive, styles(interactive, env), SignalInterrupts.create());
    }

    /**
     * Whether output may carry ANSI styles: only on a terminal, whose {@code TERM} is set and not
     * {@code dumb}, and without {@code NO_COLOR} (of any value, as no-color.org asks).
     */
    static boolean styles(boolean interactive, Map<String, String> env) {
        String term = env.getOrDefault("TERM", "");
        return interactive && !term.isBlank() && !term.equals("dumb") && !env.containsKey("NO_COLOR");
    }

    /**
     * Asks for a line. On a terminal the prompt is shown and the person types after it; from a
     * pipe the prompt is written with the line read after it, so that the output reads as the
     * same conversation.
     *
     * @param prompt what is asked, such as {@code "> "}
     * @return the line without its end, or null at the end of input
     */
    String ask(String prompt) throws IOException {
        if (interactive) {
            out.print(bold(prompt));
            out.flush();
            String line = in.readLine();
            if (line == null) {
                out.println(); // Ctrl-D left the cursor after the prompt
            }
            return line;
        }
        String line = in.readLine();
        if (line != null) {
            out.println(prompt + line);
        }
        return line;
    }

    /** Text shown faint (tool calls and other asides), on a styled terminal. */
    String dim(String text) {
        return styled ? DIM + text + RESET : text;
    }

    /** Text shown bold (prompts), on a styled terminal. */
    String bold(String text) {
        return styled ? BOLD + text + RESET : text;
    }

    /** Text shown red (errors), on a styled terminal. */
    String red(String text) {
        return styled ? RED + text + RESET : text;
    }
}
