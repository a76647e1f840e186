package dev.shelly.cli;

import dev.shelly.agent.PendingCall;
import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import dev.shelly.engine.Turn;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code shelly run PROMPT [--agent NAME] [--session ID | --continue] [--json]}: one turn, for
 * scripts. The answer goes to standard output and the tool calls, as they happen, to standard
 * error; with {@code --json} standard output holds the {@link TurnRecord} only. Exits with 0 when
 * the agent answered, 3 when the turn waits for an approval (answer it with
 * {@code shelly chat --session ID}), 1 when it failed, 2 for a usage error. {@code -} as the prompt
 * reads it from standard input. An MCP server that needs the person's authorization is refused,
 * naming it ({@link McpConsent#refusing()}): {@code shelly chat} asks for it.
 */
final class RunCommand extends Command {
    static final String JSON = "--json";
    /** The status of a turn that waits for a decision. */
    static final int PAUSED = 3;

    RunCommand(Terminal terminal) {
        super("run", terminal);
    }

    @Override
    Set<String> flags() {
        return Set.of(JSON, SessionChoice.CONTINUE);
    }

    @Override
    Set<String> options() {
        return SessionChoice.OPTIONS;
    }

    @Override
    int run(Args args, Project project) throws IOException {
        String prompt = prompt(args);
        SessionChoice choice = SessionChoice.of(name(), args);
        boolean json = args.has(JSON);
        PrintStream out = terminal.out();
        try (Engine engine = project.engine(true, ChatCommand.SESSION_WAIT);
                Session session = choice.open(engine, project)) {
            if (session.paused()) {
                throw CommandException.failed("session " + session.id() + " waits for a decision on its last turn; "
                        + "answer it with: shelly chat --session " + session.id());
            }
            TurnRecord record = new TurnRecord(session);
            session.listen(record);
            if (!json) {
                session.listen(new Transcript(terminal, terminal.err(), false));
            }
            Turn turn;
            try {
                turn = session.send(prompt);
            } catch (RuntimeException e) {
                if (json) {
                    out.println(Shown.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(record.failed(e)));
                }
                throw e;
            }
            if (json) {
                out.println(Shown.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(record.of(turn)));
            } else if (turn.paused()) {
                terminal.err().println("paused: " + turn.pending().stream().map(RunCommand::waiting)
                        .collect(Collectors.joining("; ")));
                terminal.err().println("answer with: shelly chat --session " + session.id());
            } else {
                out.println(turn.text());
            }
            return turn.paused() ? PAUSED : 0;
        }
    }

    private static String waiting(PendingCall p) {
        return switch (p.kind()) {
            case QUESTION -> p.agent() + " asks: " + p.reason();
            case INTERRUPTED -> p.agent() + ": " + p.reason();
            case APPROVAL -> p.agent() + " wants to run " + Shown.line(Shown.describe(p.call()));
        };
    }

    /** The prompt: the words, joined; {@code -} reads standard input. */
    private String prompt(Args args) throws IOException {
        String prompt = String.join(" ", args.words()).strip();
        if (prompt.equals("-")) {
            StringBuilder text = new StringBuilder();
            for (String line = terminal.in().readLine(); line != null; line = terminal.in().readLine()) {
                text.append(line).append('\n');
            }
            prompt = text.toString().strip();
        }
        if (prompt.isEmpty()) {
            throw Args.usage(name(), "needs a prompt: shelly run \"what to do\" (or - to read it from standard input)");
        }
        return prompt;
    }
}
