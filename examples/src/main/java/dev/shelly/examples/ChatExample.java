package dev.shelly.examples;

import dev.shelly.agent.Answer;
import dev.shelly.agent.PendingCall;
import dev.shelly.chats.Message;
import dev.shelly.chats.ShellyException;
import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import dev.shelly.engine.ShellyDir;
import dev.shelly.engine.Turn;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.testing.Step;
import dev.shelly.tools.ToolBox;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A terminal chat over the engine: each line you type is a turn of one session; the reply
 * streams as it is written, and tool calls and delegations show as they happen.
 *
 * <p>In a project with a {@code .shelly/} folder (found from the working directory upward) the
 * engine is built from its {@code config.yaml}, and the session is saved under
 * {@code .shelly/sessions/}. Elsewhere the engine is built in code: an {@code assistant} that may
 * delegate to a {@code researcher} with a notes-search tool, both answered by the chosen model.
 *
 * <p>With a prompt on the command line it runs that one turn. Without one it reads lines from
 * standard input until {@code /exit} or the end of input; when standard input holds nothing at
 * all, it runs the example's own question once.
 *
 * <p>When a turn pauses because an agent's {@code approval:} section marks a tool {@code ask}, the
 * chat shows the call and reads the decision from standard input: {@code y} runs it once,
 * {@code a} runs it and every later call of that tool by that agent in the session, anything
 * else (or the end of input) denies it. A question the model asks with {@code ask_user} is
 * answered with the next line, and so is a question an MCP server asks while its tool runs
 * (elicitation, with {@code elicitation: true} on the server): the line is the value of a
 * one-field form, else a JSON object of the fields; an answer that does not fit the form is asked
 * again, saying what is wrong.
 */
public final class ChatExample implements Example {
    private final Path start;

    /** A chat that looks for {@code .shelly/} from the working directory. */
    public ChatExample() {
        this(Path.of(""));
    }

    /**
     * A chat that looks for {@code .shelly/} from a folder.
     *
     * @param start where to start looking
     */
    ChatExample(Path start) {
        this.start = start;
    }

    @Override
    public String name() {
        return "chat";
    }

    @Override
    public String description() {
        return "a terminal chat over the engine: streamed replies, tools and delegations as they happen";
    }

    @Override
    public String defaultPrompt() {
        return "What are virtual threads, and why do they suit AI agents?";
    }

    @Override
    public boolean readsInput() {
        return true;
    }

    @Override
    public Message run(ExampleRun run) throws IOException {
        Optional<ShellyDir> project = ShellyDir.find(start);
        try (Engine engine = project.isPresent() ? traced(Engine.builder().dir(project.get()), run).build() : inCode(run)) {
            engine.dir().ifPresent(d -> run.note("[engine: " + d.configFile() + "]"));
            Session session = engine.newSession().listen(run.listener());
            Message last = null;
            if (run.promptGiven()) {
                last = turn(session, run.prompt(), run);
            } else {
                boolean any = false;
                String line;
                while ((line = run.input().readLine()) != null) {
                    line = line.strip();
                    if (line.equals("/exit") || line.equals("/quit")) {
                        break;
                    }
                    if (line.isEmpty()) {
                        continue;
                    }
                    any = true;
                    run.note("> " + line);
                    last = turn(session, line, run);
                }
                if (!any) {
                    run.note("> " + run.prompt());
                    last = turn(session, run.prompt(), run);
                }
            }
            if (!engine.savedSessions().isEmpty()) {
                run.note("[session " + session.id() + " saved; the engine can resume it]");
            }
            return last;
        }
    }

    private static Message turn(Session session, String text, ExampleRun run) throws IOException {
        Set<PendingCall> answered = new HashSet<>();
        Turn turn = await(session, session.submit(text), answered, run);
        while (turn.paused()) {
            for (PendingCall p : turn.pending()) {
                if (answered.add(p)) {
                    session.answer(p.id(), ask(p, run));
                }
            }
            turn = await(session, session.submitProceed(), answered, run);
        }
        return turn.reply();
    }

    /**
     * Waits for a turn, answering the questions asked while it runs: an MCP server's elicitation
     * waits as a question in the session's pending calls without pausing the turn.
     */
    private static Turn await(Session session, Future<Turn> running, Set<PendingCall> answered, ExampleRun run)
            throws IOException {
        try {
            while (true) {
                try {
                    Turn done = running.get(50, TimeUnit.MILLISECONDS);
                    run.view().finish();
                    return done;
                } catch (TimeoutException stillRunning) {
                    for (PendingCall p : session.pending()) {
                        if (p.kind() == PendingCall.Kind.QUESTION && answered.add(p)) {
                            run.view().finish();
                            session.answer(p.id(), ask(p, run));
                        }
                    }
                }
            }
        } catch (InterruptedException e) {
            running.cancel(true);
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while waiting for the turn");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;   // as Session.send throws it
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new ShellyException("the turn failed: " + e.getCause(), e.getCause());
        }
    }

    /** Shows a waiting call and reads the person's decision. */
    static Answer ask(PendingCall p, ExampleRun run) throws IOException {
        if (p.kind() == PendingCall.Kind.QUESTION) {
            run.note("[" + p.agent() + " asks] " + p.reason());
            String line = run.input().readLine();
            return line == null ? Answer.deny("the user did not answer") : Answer.reply(line.strip());
        }
        run.note("[" + p.agent() + " wants to run " + p.call().name() + " " + p.call().arguments()
                + "] allow? y = yes, a = always, n = no");
        String line = run.input().readLine();
        String choice = line == null ? "" : line.strip().toLowerCase(java.util.Locale.ROOT);
        return switch (choice) {
            case "y", "yes" -> Answer.approve();
            case "a", "always" -> Answer.approveAlways(Answer.Scope.SESSION);
            default -> Answer.deny(line == null ? "the user did not answer" : "the user said no");
        };
    }

    /** The engine built in code: the same objects a config.yaml is read into. */
    private static Engine inCode(ExampleRun run) {
        String kind = run.models().scripted() ? "openai-compatible"
                : run.models().provider().kind();
        EngineConfig config = EngineConfig.builder()
                .provider(ProviderConfig.builder("assistant-model", kind, run.models().model()).build())
                .provider(ProviderConfig.builder("researcher-model", kind, run.models().model()).build())
                .agent(AgentConfig.builder("assistant")
                        .description("Chats with the user and delegates research")
                        .instructions("Answer the user. For questions about Java virtual threads, delegate to the "
                                + "researcher first and answer from what it finds.")
                        .provider("assistant-model").maxIterations(8).maxDelegationDepth(1).build())
                .agent(AgentConfig.builder("researcher")
                        .description("Searches the research notes about Java virtual threads")
                        .instructions("Search the notes with search_notes and report what they say.")
                        .provider("researcher-model").toolboxes("notes").maxIterations(5).build())
                .entryAgent("assistant")
                .build();
        return traced(Engine.builder().config(config), run)
                .toolbox("notes", ToolBox.of(DemoNotes.searchTool()))
                .completer("assistant-model", run.model(assistantScript()))
                .completer("researcher-model", run.model(researcherScript()))
                .build();
    }

    /** The engine traces its turns when the run is traced. */
    private static Engine.Builder traced(Engine.Builder engine, ExampleRun run) {
        run.telemetry().ifPresent(engine::telemetry);
        return engine;
    }

    /** The scripted assistant: the first turn delegates and answers from the findings; later turns reply briefly. */
    static List<Step> assistantScript() {
        List<Step> steps = new ArrayList<>();
        steps.add(Step.delegate("researcher", "Find what the notes say about virtual threads and AI agents.",
                "The user asked: a question about virtual threads"));
        steps.add(Step.reply(chat -> {
            List<String> found = Scripts.delegationResults(chat);
            return found.isEmpty() ? "The researcher found nothing." : "Here is what the research notes say:\n" + found.getFirst();
        }));
        for (int i = 0; i < 100; i++) {
            steps.add(Step.reply(chat -> "(scripted) You said: " + chat.last().orElseThrow().text()
                    + ". Set a provider key to talk to a real model."));
        }
        return steps;
    }

    /** The scripted researcher: one search, then the notes it found. */
    static List<Step> researcherScript() {
        return List.of(
                Step.toolCall("search_notes", Scripts.object("query", "virtual threads agents")),
                Step.reply(chat -> "Findings:\n" + Scripts.lastResult(chat)));
    }
}
