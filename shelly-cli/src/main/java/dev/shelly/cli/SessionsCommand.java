package dev.shelly.cli;

import dev.shelly.agent.PendingCall;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code shelly sessions [list | show ID | delete ID]}: the saved conversations of the project.
 * An id may be given by its start when only one session begins with it. Listing reads each
 * session without opening it, so a session another process has open is listed too (as last
 * saved); it cannot be shown or deleted until it is let go.
 */
final class SessionsCommand extends Command {
    SessionsCommand(Terminal terminal) {
        super("sessions", terminal);
    }

    @Override
    int run(Args args, Project project) {
        List<String> words = args.words();
        String verb = words.isEmpty() ? "list" : words.getFirst();
        int needed = switch (verb) {
            case "list" -> 1;
            case "show", "delete" -> 2;
            default -> throw Args.usage(name(), "unknown subcommand '" + verb + "'; expected list, show ID or delete ID");
        };
        if (needed == 2 && words.size() < 2) {
            throw Args.usage(name(), verb + " needs a session id");
        }
        args.atMost(needed);
        try (Engine engine = project.engine(false, Duration.ZERO)) {
            switch (verb) {
                case "show" -> show(engine, SessionChoice.resolve(engine, words.get(1)));
                case "delete" -> {
                    String id = SessionChoice.resolve(engine, words.get(1));
                    engine.deleteSession(id);
                    terminal.out().println("deleted session " + id);
                }
                default -> list(engine, project);
            }
        }
        return 0;
    }

    private void list(Engine engine, Project project) {
        List<String> ids = engine.savedSessions();
        if (ids.isEmpty()) {
            terminal.out().println("no saved sessions in " + project.shellyDir().sessionsDir());
            return;
        }
        List<List<String>> rows = new ArrayList<>();
        for (String id : ids) {
            try {
                Session.Summary s = engine.sessionSummary(id);
                rows.add(List.of(id, s.agent(), Shown.count(s.turns(), "turn"), s.usage().totalTokens() + " tokens",
                        "$" + s.cost().usd().toPlainString(), s.paused() ? "waits for a decision" : ""));
            } catch (RuntimeException e) {
                rows.add(List.of(id, "cannot be read: " + Cli.describe(e)));
            }
        }
        Table.lines(rows).forEach(terminal.out()::println);
    }

    private void show(Engine engine, String id) {
        PrintStream out = terminal.out();
        try (Session session = engine.resume(id)) {
            out.println("session " + session.id() + ", agent " + session.entryAgent() + ", "
                    + Shown.count(Shown.turns(session.chat().messages()), "turn") + ", "
                    + Shown.usage(session.usage(), session.cost()));
            Map<String, ToolCall> calls = new HashMap<>();
            for (Message message : session.chat().messages()) {
                for (ToolCall call : message.toolCalls()) {
                    calls.put(call.id(), call);
                }
                print(message, calls);
            }
            for (PendingCall p : session.pending()) {
                out.println(terminal.bold("waits for a decision: ") + p.agent() + " " + switch (p.kind()) {
                    case QUESTION -> "asks: " + p.reason();
                    case INTERRUPTED -> "was cut short: " + p.reason();
                    case APPROVAL -> "wants to run " + Shown.line(Shown.describe(p.call()));
                });
            }
            if (session.paused()) {
                out.println("answer with: shelly chat --session " + session.id());
            }
        }
    }

    private void print(Message message, Map<String, ToolCall> calls) {
        PrintStream out = terminal.out();
        if (message.role() == Role.SYSTEM) {
            return;
        }
        if (!message.text().isBlank()) {
            String who = message.role() == Role.USER ? "you" : message.sender();
            out.println(terminal.bold(who + ": ") + message.text().strip());
        }
        for (ToolCall call : message.toolCalls()) {
            Shown.call(call).forEach(line -> out.println(terminal.dim("  " + Shown.line(line))));
        }
        for (ToolResult result : message.toolResults()) {
            ToolCall call = calls.getOrDefault(result.toolCallId(), new ToolCall(result.toolCallId(), "?", "{}"));
            Shown.result(call, result).forEach(line -> out.println(terminal.dim("  " + Shown.line(line))));
        }
    }
}
