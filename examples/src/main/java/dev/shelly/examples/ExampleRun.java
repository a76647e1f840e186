package dev.shelly.examples;

import dev.shelly.agent.AgentListener;
import dev.shelly.agent.RunContext;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.UsageTracker;
import dev.shelly.otel.ShellyTelemetry;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import io.opentelemetry.api.GlobalOpenTelemetry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

/**
 * What one run of an {@link Example} works with: the prompt, the model and the view.
 *
 * <pre>{@code
 * Agent agent = Agent.builder("weather-bot")
 *         .completer(run.model(Step.toolCall("get_weather", "{\"city\":\"Paris\"}"), Step.reply("Sunny.")))
 *         .listener(run.listener())
 *         .build();
 * return agent.run(run.prompt(), run.scope());
 * }</pre>
 */
public final class ExampleRun {
    private final List<Path> folders = new CopyOnWriteArrayList<>();
    private volatile boolean keepFiles;
    private final String prompt;
    private final ExampleModels models;
    private final ConsoleView view;
    private final UsageTracker usage = new UsageTracker();
    private final Completer real;
    private final BufferedReader input;
    private final boolean promptGiven;
    private final ShellyTelemetry telemetry;
    private final RunContext scope;

    /**
     * Prepares a run; opens the real provider, if one is chosen (this does not touch the network).
     *
     * @param prompt the task
     * @param models the chosen model
     * @param view where the run is shown; also told about retries
     * @throws IllegalArgumentException when the provider's settings are invalid (e.g. a base URL
     *     that is not an http URL)
     */
    public ExampleRun(String prompt, ExampleModels models, ConsoleView view) {
        this(prompt, true, new BufferedReader(new StringReader("")), models, view);
    }

    /**
     * Prepares a run that may read more input, as an interactive example does.
     *
     * @param prompt the task
     * @param promptGiven whether the command line gave the prompt (rather than the example's default)
     * @param input where further input comes from, such as standard input
     * @param models the chosen model
     * @param view where the run is shown; also told about retries
     * @throws IllegalArgumentException when the provider's settings are invalid
     */
    public ExampleRun(String prompt, boolean promptGiven, BufferedReader input, ExampleModels models, ConsoleView view) {
        if (prompt == null || input == null || models == null || view == null) {
            throw new IllegalArgumentException("ExampleRun needs a prompt, an input, the models and a view");
        }
        this.promptGiven = promptGiven;
        this.input = input;
        this.prompt = prompt;
        this.models = models;
        this.view = view;
        this.real = models.scripted() ? null : models.open(view, view, usage);
        this.telemetry = GlobalOpenTelemetry.isSet() ? ShellyTelemetry.create(GlobalOpenTelemetry.get()) : null;
        this.scope = telemetry != null ? RunContext.builder().observers(telemetry).build() : RunContext.root();
    }

    /**
     * A new temporary folder for the example's files, removed by {@link #cleanUp()} when the
     * example ends (kept, and named, when {@code SHELLY_KEEP_FILES} is set).
     *
     * @param prefix the start of the folder's name
     * @return the folder
     * @throws IOException when it cannot be made
     */
    public Path workFolder(String prefix) throws IOException {
        Path folder = Files.createTempDirectory(prefix);
        folders.add(folder);
        return folder;
    }

    /**
     * Whether {@link #cleanUp()} keeps the work folders rather than removing them.
     *
     * @param keep true to keep them
     */
    public void keepFiles(boolean keep) {
        this.keepFiles = keep;
    }

    /** Removes the work folders, or, when they are kept, says where they are. */
    public void cleanUp() {
        for (Path folder : folders) {
            if (keepFiles) {
                note("[files kept in " + folder + "]");
                continue;
            }
            try (Stream<Path> walk = Files.walk(folder)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException e) {
                note("[could not remove " + folder + ": " + e.getMessage() + "]");
            }
        }
        folders.clear();
    }

    /**
     * The telemetry the example's runs are traced with, for the engine and MCP clients it builds.
     *
     * @return shelly-otel on the global OpenTelemetry, or empty when none was set
     */
    public Optional<ShellyTelemetry> telemetry() {
        return Optional.ofNullable(telemetry);
    }

    /**
     * The scope the example's runs go in: traced with shelly-otel (GenAI spans and metrics) to the
     * global OpenTelemetry when the application or a test has set one
     * ({@code GlobalOpenTelemetry.set}, or the OpenTelemetry Java agent), untraced otherwise.
     *
     * @return the scope; the same for every run of this example
     */
    public RunContext scope() {
        return scope;
    }

    /**
     * The task: the command line's prompt, or the example's default.
     *
     * @return the prompt
     */
    public String prompt() {
        return prompt;
    }

    /**
     * Whether the command line gave the prompt; otherwise it is the example's default.
     *
     * @return true for a prompt from the command line
     */
    public boolean promptGiven() {
        return promptGiven;
    }

    /**
     * Further input, line by line: standard input when run from the command line.
     *
     * @return the reader
     */
    public BufferedReader input() {
        return input;
    }

    /**
     * The chosen model.
     *
     * @return the selection
     */
    public ExampleModels models() {
        return models;
    }

    /**
     * The model for one agent: the real provider (one completer shared by all agents of the run),
     * or, when none is configured, a fresh scripted model following this script. Each call gives
     * the scripted agent a script of its own, so a factory that calls this for every delegated
     * child gives every child the whole script.
     *
     * @param script what the scripted model does, step by step
     * @return the completer
     */
    public Completer model(Step... script) {
        return model(List.of(script));
    }

    /**
     * The model for one agent; see {@link #model(Step...)}.
     *
     * @param script what the scripted model does, step by step
     * @return the completer
     */
    public Completer model(List<Step> script) {
        return real != null ? real : ScriptedCompleter.of(script);
    }

    /**
     * The listener that shows the agents' work; give it to the top agent (children inherit it).
     *
     * @return the view, as a listener
     */
    public AgentListener listener() {
        return view;
    }

    /**
     * The view the run writes to.
     *
     * @return the view
     */
    public ConsoleView view() {
        return view;
    }

    /**
     * Writes a line of the example's own, such as what a server offers or what the store holds.
     *
     * @param line the text
     */
    public void note(String line) {
        view.note(line);
    }

    /**
     * The usage of every real model call of this run.
     *
     * @return the tracker (empty for a scripted run)
     */
    public UsageTracker usage() {
        return usage;
    }
}
