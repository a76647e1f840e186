package dev.shelly.cli;

import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import dev.shelly.engine.Turn;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * {@code shelly chat [--agent NAME] [--session ID | --continue]}: a conversation on the terminal.
 * Each line typed is a turn of one session; the answer streams as it is written, tool calls and
 * delegations show as they happen, a call that needs approval (or a question an MCP server asks
 * while its tool runs) is asked about inline, so is the authorization an MCP server with
 * {@code oauth:} needs ({@link McpConsent}), and Ctrl-C
 * stops the running turn (not the program). The session is saved after every turn.
 */
final class ChatCommand extends Command {
    /** How long opening a session waits for another process that has it open. */
    static final Duration SESSION_WAIT = Duration.ofSeconds(3);

    private final Decisions decisions;

    ChatCommand(Terminal terminal) {
        super("chat", terminal);
        this.decisions = new Decisions(terminal);
    }

    @Override
    Set<String> flags() {
        return SessionChoice.FLAGS;
    }

    @Override
    Set<String> options() {
        return SessionChoice.OPTIONS;
    }

    @Override
    int run(Args args, Project project) throws IOException {
        args.atMost(0);
        SessionChoice choice = SessionChoice.of(name(), args);
        PrintStream out = terminal.out();
        try (Engine engine = project.engine(true, SESSION_WAIT, McpConsent.asking(terminal));
                Session session = choice.open(engine, project)) {
            Transcript view = new Transcript(terminal, out, true);
            session.listen(view);
            out.println(terminal.dim("agent " + session.entryAgent() + ", session " + session.id()
                    + (choice.resumes() ? ", " + Shown.count(Shown.turns(session.chat().messages()), "turn")
                            + " so far" : "")));
            out.println(terminal.dim("/exit or end of input quits; Ctrl-C stops a reply; /help for more"));
            boolean going = !session.paused() || answered(session, view, "the turn it paused in");
            while (going) {
                String line = terminal.ask("> ");
                if (line == null) {
                    break;
                }
                String text = line.strip();
                if (text.startsWith("/")) {
                    going = slash(text, session);
                } else if (!text.isEmpty()) {
                    going = turn(session, view, () -> session.submit(text));
                }
            }
            out.println(terminal.dim("session " + session.id() + " saved; go on with: shelly chat --session "
                    + session.id()));
        }
        return 0;
    }

    /** Runs a turn to its end, asking about every call it pauses for; false when the input ended. */
    private boolean turn(Session session, Transcript view, Supplier<Future<Turn>> start) throws IOException {
        Turn turn = await(session, view, start);
        return turn == null || !turn.paused() || answered(session, view, "the turn");
    }

    /** Asks about the calls the session waits for, then goes on with its turn. */
    private boolean answered(Session session, Transcript view, String what) throws IOException {
        if (!decisions.answerAll(session)) {
            view.note(terminal.dim(what + " waits for your decision"));
            return false;
        }
        return turn(session, view, session::submitProceed);
    }

    /**
     * Starts a turn and waits for it, asking the questions it waits for while it runs, letting
     * Ctrl-C cancel it (the trap is set before the turn starts, so that no Ctrl-C during the turn
     * ends the program); null when it was cancelled or failed.
     */
    @SuppressWarnings("try") // the trap is held for the turn, not used in it
    private Turn await(Session session, Transcript view, Supplier<Future<Turn>> start) throws IOException {
        Future<Turn> turn = null;
        try (Interrupts.Trap trap = terminal.interrupts().trap(session::cancel)) {
            turn = start.get();
            Turn done = null;
            while (done == null) {
                try {
                    done = turn.get(100, TimeUnit.MILLISECONDS);
                } catch (TimeoutException running) {
                    decisions.answerAsked(session, view::endLine);
                }
            }
            view.endLine();
            return done;
        } catch (CancellationException e) {
            view.note(terminal.dim("[cancelled]"));
        } catch (ExecutionException e) {
            view.note(terminal.red("error: ") + Cli.describe(e.getCause()));
            Cli.trace(terminal, e.getCause());
        } catch (InterruptedException e) {
            if (turn != null) {
                turn.cancel(true);
            }
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while waiting for the turn");
        }
        return null;
    }

    /** A line that begins with a slash; false for {@code /exit}. */
    private boolean slash(String line, Session session) {
        PrintStream out = terminal.out();
        switch (line) {
            case "/exit", "/quit" -> {
                return false;
            }
            case "/session" -> out.println("session " + session.id() + " with agent " + session.entryAgent());
            case "/usage" -> out.println(Shown.usage(session.usage(), session.cost()));
            case "/help" -> {
                out.println("  /session   the session's id and agent");
                out.println("  /usage     the tokens and cost of the session so far");
                out.println("  /exit      quit (the session is saved; shelly chat --continue goes on with it)");
            }
            default -> out.println("unknown command " + line + "; /help lists them");
        }
        return true;
    }
}
