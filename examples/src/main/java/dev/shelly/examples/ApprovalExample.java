package dev.shelly.examples;

import dev.shelly.agent.Answer;
import dev.shelly.agent.PendingCall;
import dev.shelly.agent.ToolPolicy;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import dev.shelly.engine.Turn;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.testing.Step;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A paused session resumed in a second process: a clerk agent keeps notes; its tool policy lets
 * it read them freely but makes it ask before it writes one. This process sends the request; the
 * turn reads the notes, then pauses with the write waiting for a decision; the session is saved
 * with what it waits for and this process lets it go. A second JVM (this program's {@link #main})
 * resumes the session by id, shows the waiting call, approves it and runs the turn to its end:
 * the write runs there, once, and the model reads both results in call order.
 *
 * <p>Offline, a scripted model plays the clerk in both processes; with a provider key set, the
 * same provider answers in both (it is stateless: the saved chat is all it needs).
 */
public final class ApprovalExample implements Example {
    private static final String AGENT = "clerk";

    @Override
    public String name() {
        return "approval";
    }

    @Override
    public String description() {
        return "a tool call waits for approval; a second process resumes the paused session and approves it";
    }

    @Override
    public String defaultPrompt() {
        return "Note that I need to buy oat milk.";
    }

    @Override
    public Message run(ExampleRun run) throws Exception {
        Path dir = run.workFolder("shelly-approval-");
        String id;
        try (Engine engine = engine(dir, run.model(firstScript()), run.models());
                Session session = engine.newSession().listen(run.listener())) {
            Turn turn = session.send(run.prompt());
            run.view().finish();
            if (!turn.paused()) {
                run.note("[the model wrote no note, so nothing waits for approval]");
                return turn.reply();
            }
            for (PendingCall p : turn.pending()) {
                run.note("[paused: " + p.id() + " — " + p.agent() + " wants to run " + p.call().name() + " "
                        + p.call().arguments() + "]");
            }
            id = session.id();
            run.note("[session " + id + " saved with the waiting call; this process lets it go]");
        }
        ProcessBuilder command = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"), ApprovalExample.class.getName(), dir.toString(), id))
                .redirectErrorStream(true);
        if (run.models().scripted()) {
            command.environment().put("SHELLY_PROVIDER", "scripted"); // the same model as this process, whatever is set
        }
        Process second = command.start();
        String last = "";
        try (BufferedReader in = new BufferedReader(new InputStreamReader(second.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                run.note("[second process] " + line);
                last = line;
            }
        }
        if (!second.waitFor(10, TimeUnit.MINUTES)) {
            second.destroyForcibly();
            throw new IllegalStateException("the second process did not finish within 10 minutes");
        }
        if (second.exitValue() != 0) {
            throw new IllegalStateException("the second process failed with exit code " + second.exitValue());
        }
        for (String note : Files.readAllLines(dir.resolve("notes.txt"))) {
            run.note("[notes.txt] " + note);
        }
        return Message.text(AGENT, Role.ASSISTANT, last);
    }

    /**
     * The second process: resumes the session, approves what waits, and runs the turn to its end.
     *
     * @param args the folder the session is saved in, and its id
     * @throws Exception when the turn fails
     */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        ExampleModels models = ExampleModels.select(System.getenv());
        ExampleRun run = new ExampleRun("", models, new ConsoleView(new PrintStream(PrintStream.nullOutputStream())));
        try (Engine engine = engine(Path.of(args[0]), run.model(secondScript()), models);
                Session session = engine.resume(args[1])) {
            for (PendingCall p : session.pending()) {
                out.println("resumed session " + session.id() + "; " + p.id() + " waits: " + p.agent() + " wants to run "
                        + p.call().name() + " " + p.call().arguments());
                session.answer(p.id(), Answer.approve());
                out.println("approved " + p.id());
            }
            Turn turn = session.proceed();
            while (turn.paused()) {
                for (PendingCall p : turn.pending()) {
                    session.answer(p.id(), Answer.approve());
                    out.println("approved " + p.id());
                }
                turn = session.proceed();
            }
            out.println(turn.text());
        }
    }

    /** The engine of both processes: the clerk, its notes tools, and a policy that asks before writing. */
    static Engine engine(Path dir, dev.shelly.modeladapter.Completer model, ExampleModels models) {
        String kind = models.scripted() ? "openai-compatible" : models.provider().kind();
        EngineConfig config = EngineConfig.builder()
                .provider(ProviderConfig.builder("model", kind, models.model()).build())
                .agent(AgentConfig.builder(AGENT)
                        .description("Keeps the user's notes")
                        .instructions("You keep the user's notes. Call read_notes and write_note together in one "
                                + "reply: read the notes, and save the new one with write_note. Then confirm briefly.")
                        .toolboxes("notes").maxIterations(6).build())
                .build();
        return Engine.builder().config(config).completer("model", model).sessionsDir(dir.resolve("sessions"))
                .toolbox("notes", notes(dir.resolve("notes.txt")))
                .toolPolicy(AGENT, ToolPolicy.builder().allow("read_notes").ask("write_note").build())
                .build();
    }

    /** read_notes and write_note over one file. */
    static ToolBox notes(Path file) {
        return ToolBox.of(
                Tool.of("read_notes", "Reads every saved note", "{\"type\":\"object\",\"properties\":{}}", (input, ctx) -> {
                    List<String> all = Files.exists(file) ? Files.readAllLines(file) : List.of();
                    return ToolOutput.text(all.isEmpty() ? "no notes yet" : String.join("\n", all));
                }),
                Tool.of("write_note", "Saves one note", """
                        {"type":"object","properties":{"text":{"type":"string","description":"The note"}},\
                        "required":["text"]}""", (input, ctx) -> {
                    String text = input.path("text").asString("").strip();
                    if (text.isEmpty()) {
                        return ToolOutput.error("write_note needs a non-empty 'text'");
                    }
                    try {
                        Files.writeString(file, text + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    return ToolOutput.text("saved: " + text);
                }));
    }

    /** The scripted clerk of the first process: read and write in one reply. */
    static List<Step> firstScript() {
        return List.of(Step.toolCalls(new Step.Call("read_notes", "{}"),
                new Step.Call("write_note", Scripts.object("text", "buy oat milk"))));
    }

    /** The scripted clerk of the second process: it answers from the two results. */
    static List<Step> secondScript() {
        List<Step> steps = new ArrayList<>();
        steps.add(Step.reply(chat -> "Done. Before: " + Scripts.lastResults(chat).get(0) + "; now " + Scripts.lastResults(chat).get(1)));
        return steps;
    }
}
