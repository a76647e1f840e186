package dev.shelly.cli;

import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Which session a turn goes to: {@code --session ID}, {@code --continue} (the saved one used
 * last), or a new one, with {@code --agent NAME} or the entry agent.
 *
 * @param command the command's name, for messages
 * @param id the session asked for by id, or null
 * @param latest whether the saved session used last is asked for
 * @param agent the agent of a new session, or null for the entry agent
 */
record SessionChoice(String command, String id, boolean latest, String agent) {
    static final String AGENT = "--agent";
    static final String SESSION = "--session";
    static final String CONTINUE = "--continue";
    /** The flags and options of a command that opens a session. */
    static final Set<String> FLAGS = Set.of(CONTINUE);
    static final Set<String> OPTIONS = Set.of(AGENT, SESSION);

    /**
     * Reads the choice from a command's arguments.
     *
     * @throws CommandException a usage error when the options contradict each other
     */
    static SessionChoice of(String command, Args args) {
        Optional<String> id = args.value(SESSION);
        boolean latest = args.has(CONTINUE);
        Optional<String> agent = args.value(AGENT);
        if (id.isPresent() && latest) {
            throw Args.usage(command, "--session and --continue exclude each other");
        }
        if (agent.isPresent() && (id.isPresent() || latest)) {
            throw Args.usage(command, "--agent starts a new session; a session goes on with the agent it began with");
        }
        return new SessionChoice(command, id.orElse(null), latest, agent.orElse(null));
    }

    /** Whether an earlier session is asked for. */
    boolean resumes() {
        return id != null || latest;
    }

    /**
     * Opens the session.
     *
     * @param engine the engine
     * @param project for the message when there is nothing to continue
     * @return the session; close it
     */
    Session open(Engine engine, Project project) {
        if (id != null) {
            return engine.resume(resolve(engine, id));
        }
        if (latest) {
            Session.Summary last = engine.sessionSummaries().stream()
                    .max(Comparator.comparing(Session.Summary::lastUsed).thenComparing(Session.Summary::id))
                    .orElseThrow(() -> CommandException.failed("no saved session to continue in "
                            + project.shellyDir().sessionsDir() + "; start one with: shelly " + command));
            return engine.resume(last.id());
        }
        return agent == null ? engine.newSession() : engine.newSessionWith(agent);
    }

    /**
     * The saved session an id names: that id, or the only saved one it begins (ids are long; their
     * start, the time, is often enough).
     *
     * @return the id to open; the given one when none matches (opening it then says so)
     * @throws CommandException when several saved sessions begin with it
     */
    static String resolve(Engine engine, String given) {
        List<String> saved = engine.savedSessions();
        if (saved.contains(given)) {
            return given;
        }
        List<String> matches = saved.stream().filter(s -> s.startsWith(given)).toList();
        if (matches.size() > 1) {
            throw CommandException.failed("'" + given + "' begins " + matches.size() + " sessions: "
                    + String.join(", ", matches) + "; give more of the id");
        }
        return matches.isEmpty() ? given : matches.getFirst();
    }
}
