package dev.shelly.cli;

import dev.shelly.agent.Answer;
import dev.shelly.agent.PendingCall;
import dev.shelly.engine.Session;
import java.io.IOException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Asks the person about the tool calls a turn paused for, one by one: an approval is answered
 * {@code y} (run it), {@code a} (run it and every later call of that tool by that agent in this
 * session), {@code n} (do not; words after the {@code n} are the reason the model reads) or
 * {@code e} (run it with arguments typed next); a question with the line typed, also one an MCP
 * server asks while its tool runs (for a form of several fields, a JSON object).
 */
final class Decisions {
    static final String CHOICES = "allow? [y]es, [a]lways, [n]o, [e]dit: ";
    static final String INTERRUPTED_CALL = "run it again? [y]es, [n]o (its outcome stays unknown): ";
    static final String INTERRUPTED_TURN = "go on? [y]es, [n]o (end the turn): ";

    private final Terminal terminal;
    /** The calls answered already: a question asked while the turn ran is listed again when the turn pauses. */
    private final Set<PendingCall> answered = new HashSet<>();

    Decisions(Terminal terminal) {
        this.terminal = terminal;
    }

    /**
     * Asks the questions the session's running turn waits for (an MCP server's elicitation waits
     * as a question without pausing the turn), each once. At the end of input a question is
     * denied: the turn cannot wait for a later {@code shelly chat} as a paused one does.
     *
     * @param before called before the first question is shown, to end the line being written
     */
    void answerAsked(Session session, Runnable before) throws IOException {
        for (PendingCall pending : session.pending()) {
            if (pending.kind() != PendingCall.Kind.QUESTION || answered.contains(pending)) {
                continue;
            }
            before.run();
            Answer answer = ask(pending);
            answered.add(pending);
            session.answer(pending.id(), answer == null ? Answer.deny("the user did not answer") : answer);
        }
    }

    /**
     * Asks about every call the session waits for, then answers them all.
     *
     * @return false when the input ended first: then no call is answered, and the session stays
     *     paused, saved, for a later {@code shelly chat --session}
     */
    boolean answerAll(Session session) throws IOException {
        Map<String, Answer> answers = new LinkedHashMap<>();
        for (PendingCall pending : session.pending()) {
            if (answered.contains(pending)) {
                continue;
            }
            Answer answer = ask(pending);
            if (answer == null) {
                return false;
            }
            answers.put(pending.id(), answer);
        }
        session.pending().stream().filter(p -> answers.containsKey(p.id())).forEach(answered::add);
        answers.forEach(session::answer);
        return true;
    }

    /** One call's answer; null at the end of input. */
    private Answer ask(PendingCall pending) throws IOException {
        if (pending.kind() == PendingCall.Kind.INTERRUPTED) {
            return interrupted(pending);
        }
        if (pending.kind() == PendingCall.Kind.QUESTION) {
            terminal.out().println(terminal.bold("? " + pending.agent() + " asks: ") + pending.reason());
            String line = terminal.ask("answer: ");
            return line == null ? null : Answer.reply(line.strip());
        }
        terminal.out().println(terminal.bold("? " + pending.agent() + " wants to run ")
                + Shown.line(Shown.describe(pending.call())));
        while (true) {
            String line = terminal.ask(CHOICES);
            if (line == null) {
                return null;
            }
            String choice = line.strip();
            String word = choice.split("\\s+", 2)[0].toLowerCase(Locale.ROOT);
            switch (word) {
                case "y", "yes" -> {
                    return Answer.approve();
                }
                case "a", "always" -> {
                    return Answer.approveAlways(Answer.Scope.SESSION);
                }
                case "n", "no" -> {
                    String reason = choice.substring(word.length()).strip();
                    return Answer.deny(reason.isEmpty() ? "the user said no" : reason);
                }
                case "e", "edit" -> {
                    String json = terminal.ask("arguments (JSON): ");
                    Answer edited = json == null ? null : edit(json);
                    if (json == null || edited != null) {
                        return edited;
                    }
                }
                default -> terminal.out().println("  answer y, a, n or e");
            }
        }
    }

    /**
     * A call (or a turn) a crash cut short: run it again, or tell the model its outcome is
     * unknown (for the turn: go on, or end it); null at the end of input.
     */
    private Answer interrupted(PendingCall pending) throws IOException {
        terminal.out().println(terminal.bold("? " + pending.agent() + ": ") + pending.reason()
                + (pending.call() == null ? "" : " - " + Shown.line(Shown.describe(pending.call()))));
        String choices = pending.call() == null ? INTERRUPTED_TURN : INTERRUPTED_CALL;
        while (true) {
            String line = terminal.ask(choices);
            if (line == null) {
                return null;
            }
            switch (line.strip().toLowerCase(Locale.ROOT)) {
                case "y", "yes" -> {
                    return Answer.approve();
                }
                case "n", "no" -> {
                    return Answer.deny(pending.call() == null ? "the user ended the turn" : "the user did not run it again");
                }
                default -> terminal.out().println("  answer y or n");
            }
        }
    }

    /** Other arguments for the call; null (ask again) when they are not a JSON object. */
    private Answer edit(String json) {
        if (!Shown.tree(json).isObject()) {
            terminal.out().println("  that is not a JSON object; answer again");
            return null;
        }
        return Answer.edit(json.strip());
    }
}
