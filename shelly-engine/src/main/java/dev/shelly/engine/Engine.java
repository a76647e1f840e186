package dev.shelly.engine;

import dev.shelly.agent.Agent;
import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.Registry;
import dev.shelly.agent.RunObserver;
import dev.shelly.chats.ShellyException;
import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.modeladapter.UsageTracker;
import dev.shelly.skills.Skill;
import dev.shelly.state.Store;
import dev.shelly.state.tasks.TaskBoard;
import dev.shelly.storage.SessionBusyException;
import dev.shelly.storage.SessionExistsException;
import dev.shelly.storage.SessionNotFoundException;
import dev.shelly.storage.spi.SessionStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.LoggerFactory;

/**
 * The composition root: builds the providers, connects the MCP servers, loads skills and
 * project context, and registers every configured agent as a factory in a {@link Registry}.
 *
 * <pre>{@code
 * try (Engine engine = Engine.open(Path.of("."))) {          // finds .shelly/config.yaml
 *     engine.events().subscribe(event -> log.info("{}", event));
 *     try (Session session = engine.newSession()) {
 *         System.out.println(session.send("What does this project do?").text());
 *     }
 * }
 * }</pre>
 *
 * <p>Everything a file can say can be said in code with the same objects: build an
 * {@link EngineConfig} and pass it to {@link #builder()}; register your own Java toolboxes
 * with {@link Builder#toolbox} and refer to them by name from agents.
 *
 * <p>Every problem in the configuration is found when the engine is built, not at the first
 * call: unknown providers, toolboxes, tools, skills and agents, providers without a key, MCP
 * servers that do not start. {@link #close()} closes everything the engine opened, MCP
 * subprocesses included.
 *
 * <h2>Sessions</h2>
 * The engine keeps one live conversation per session id: {@link #resume} of an id that is open
 * returns another {@link Session} handle on it, so concurrent requests on one conversation queue
 * their turns instead of overwriting each other. When its last handle closes, the conversation is
 * let go ({@link #openSessions()} counts those still held). Saved sessions live in a
 * {@link SessionStore} (by default files in {@code .shelly/sessions}, in Redis when the
 * configuration has a {@code redis:} section); the store's lease keeps one
 * session out of the hands of other engines and processes while it is open here: they wait up to
 * {@link Builder#sessionWait} and then fail with {@link SessionBusyException}.
 */
public final class Engine implements AutoCloseable {
    /** How long opening a session waits for another holder unless {@link Builder#sessionWait} says otherwise. */
    public static final Duration DEFAULT_SESSION_WAIT = Duration.ofSeconds(10);

    /** The namespace of the built-in {@code state} toolbox: its tools are {@code shared_state_*}. */
    public static final String STATE_NAMESPACE = "shared";

    private final EngineParts parts;
    /** What the configuration's extension sections started, closed first when the engine closes. */
    private volatile List<AutoCloseable> extensions = List.of();

    Engine(EngineParts parts) {
        this.parts = parts;
    }

    void extensions(List<AutoCloseable> started) {
        this.extensions = List.copyOf(started);
    }

    /**
     * Finds {@code .shelly/} from a folder upward and builds the engine it describes.
     *
     * @param start where to start looking, usually the working directory
     * @return the running engine
     * @throws ConfigException when there is no {@code .shelly/} or the configuration is wrong
     */
    public static Engine open(Path start) {
        return builder().dir(ShellyDir.require(start)).build();
    }

    /**
     * Starts an engine.
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The configuration the engine runs.
     *
     * @return the configuration
     */
    public EngineConfig config() {
        return parts.config();
    }

    /**
     * The {@code .shelly/} folder, if the engine has one.
     *
     * @return the folder, or empty for an engine built in code only
     */
    public Optional<ShellyDir> dir() {
        return Optional.ofNullable(parts.dir());
    }

    /**
     * Every configured agent, as a factory.
     *
     * @return the registry
     */
    public Registry registry() {
        return parts.agents().registry();
    }

    /**
     * The events of every agent the engine runs, delegated children included.
     *
     * @return the bus
     */
    public EventBus<AgentEvent> events() {
        return parts.events();
    }

    /**
     * The tokens every completer of this engine used, those given in code included.
     *
     * @return the tracker
     */
    public UsageTracker usage() {
        return parts.usage();
    }

    /**
     * The prices that turn the agents' usage into cost: {@link ModelTable#defaults()}, then the
     * configuration's {@code prices:}, then {@link Builder#prices(ModelTable)}, each laid over the
     * one before.
     *
     * @return the price table
     */
    public ModelTable prices() {
        return parts.agents().prices();
    }

    /**
     * The blackboard behind the built-in {@code state} toolbox.
     *
     * @return the store
     */
    public Store store() {
        return parts.store();
    }

    /**
     * The task board behind the built-in {@code tasks} toolbox.
     *
     * @return the board
     */
    public TaskBoard tasks() {
        return parts.tasks();
    }

    /**
     * The skills the engine loaded.
     *
     * @return the skills, sorted by name
     */
    public List<Skill> skills() {
        return parts.agents().skills();
    }

    /**
     * What building the engine found wrong without failing, each also logged once as a WARN
     * line: a user's skill ({@code ~/.shelly/skills}) hidden by a project's skill of the same name.
     *
     * @return the warnings, in the order found; empty when there were none
     */
    public List<String> warnings() {
        return parts.warnings();
    }

    /**
     * The project context agents see.
     *
     * @return the text, empty when there is none
     */
    public String projectContext() {
        return parts.agents().projectContext();
    }

    /**
     * A fresh agent, as the registry would spawn it at the top of a tree.
     *
     * @param name a configured agent
     * @return the agent, with a new chat
     * @throws IllegalArgumentException naming the configured agents when there is no such agent
     */
    public Agent agent(String name) {
        return parts.agents().publishing(name);
    }

    /**
     * Starts a conversation with the entry agent under a new id (a UTC time and 128 random bits).
     *
     * @return a handle on the session; close it when done
     * @throws SessionBusyException when the store cannot hold the new session in time
     */
    public Session newSession() {
        return parts.sessions().create();
    }

    /**
     * Starts a conversation with the entry agent under an id of the caller's choosing, such as
     * a conversation id of the application.
     *
     * @param id the session's id: 1 to 128 letters, digits, {@code '.'}, {@code '_'} and
     *     {@code '-'}, starting with a letter or digit, without {@code ".."}
     * @return a handle on the session; close it when done
     * @throws IllegalArgumentException naming the parameter when the id is not valid
     * @throws SessionExistsException when a session of that id is saved or open already
     * @throws SessionBusyException when another engine or process holds that id
     */
    public Session newSession(String id) {
        return parts.sessions().create(id);
    }

    /**
     * Starts a conversation with a configured agent, which need not be the entry agent, under a
     * new id; the session goes on with that agent when it is resumed.
     *
     * @param agent a configured agent's name
     * @return a handle on the session; close it when done
     * @throws IllegalArgumentException naming the configured agents when there is no such agent
     * @throws SessionBusyException when the store cannot hold the new session in time
     */
    public Session newSessionWith(String agent) {
        return parts.sessions().create(null, agent);
    }

    /**
     * Starts a conversation with a configured agent under an id of the caller's choosing.
     *
     * @param id the session's id, as for {@link #newSession(String)}
     * @param agent a configured agent's name
     * @return a handle on the session; close it when done
     * @throws IllegalArgumentException naming the parameter when the id is not valid, or the
     *     configured agents when there is no such agent
     * @throws SessionExistsException when a session of that id is saved or open already
     * @throws SessionBusyException when another engine or process holds that id
     */
    public Session newSession(String id, String agent) {
        if (id == null) {
            throw new IllegalArgumentException("Engine.newSession id must not be null; newSessionWith(agent) makes one");
        }
        return parts.sessions().create(id, agent);
    }

    /**
     * Continues a conversation: a new handle on it when it is open in this engine, else the saved
     * one, held for this engine until its last handle closes.
     *
     * @param id the session's id
     * @return a handle on the session, holding the conversation so far; close it when done
     * @throws IllegalArgumentException naming the parameter when the id is not valid
     * @throws SessionNotFoundException when there is no such session (the message names only {@code id})
     * @throws SessionBusyException when another engine or process holds it beyond
     *     {@link Builder#sessionWait}
     * @throws ShellyException when this engine saves no sessions and the id is not open, or the
     *     session's agent is no longer configured
     */
    public Session resume(String id) {
        return parts.sessions().resume(id);
    }

    /**
     * The ids of the saved sessions.
     *
     * @return the ids, sorted; empty when sessions are not saved
     */
    public List<String> savedSessions() {
        return parts.sessions().saved();
    }

    /**
     * A saved session at a glance: its agent, when it began and was last used, its turns, usage
     * and cost, and whether it waits for a decision. Read without opening the session, so it
     * neither waits for nor disturbs an engine or process that holds it; what that holder has not
     * saved yet is not in it.
     *
     * @param id the session's id
     * @return the summary
     * @throws IllegalArgumentException naming the parameter when the id is not valid
     * @throws SessionNotFoundException when there is no such session, or this engine saves none
     * @throws ShellyException naming the session when what is saved cannot be read
     */
    public Session.Summary sessionSummary(String id) {
        return parts.sessions().summary(id);
    }

    /**
     * Every saved session at a glance, as {@link #sessionSummary} reads one; a session that
     * cannot be read is left out, with a WARN line naming it.
     *
     * @return the summaries, by id (so by when the sessions began, for generated ids); empty when
     *     sessions are not saved
     */
    public List<Session.Summary> sessionSummaries() {
        return parts.sessions().summaries();
    }

    /**
     * Deletes a saved session. An open session is not deleted: close its handles first.
     *
     * @param id the session's id
     * @throws IllegalArgumentException naming the parameter when the id is not valid
     * @throws SessionBusyException when the session is open in this engine, or held by another
     *     engine or process beyond {@link Builder#sessionWait}
     * @throws SessionNotFoundException when there is no such session
     */
    public void deleteSession(String id) {
        parts.sessions().delete(id);
    }

    /**
     * How many sessions this engine holds open: those with a handle not yet closed.
     *
     * @return the count
     */
    public int openSessions() {
        return parts.sessions().open();
    }

    /**
     * The ids of the sessions this engine holds open now; {@link #resume} of one returns another
     * handle on its live conversation.
     *
     * @return the ids, sorted
     */
    public List<String> openSessionIds() {
        return parts.sessions().openIds();
    }

    /**
     * Closes what the configuration's extensions started (a console), the open sessions
     * (cancelling their turns), the MCP clients (ending their subprocesses) and the event bus.
     */
    @Override
    public void close() {
        List<AutoCloseable> started = extensions;
        extensions = List.of();
        for (AutoCloseable extension : started.reversed()) {
            try {
                extension.close();
            } catch (Exception e) {
                LoggerFactory.getLogger(Engine.class).warn("closing {} failed: {}", extension, e.toString());
            }
        }
        parts.close();
    }

    /**
     * A module that starts with the engine when the configuration has its section, such as
     * {@code shelly-console} for {@code console:}. The engine finds extensions with
     * {@link java.util.ServiceLoader} only when a section it names is configured, so an engine
     * without one pays nothing, and it does not depend on the module that provides it.
     */
    public interface Extension {
        /**
         * The top-level section of the configuration that starts this extension.
         *
         * @return the section's name, such as {@code console}
         */
        String section();

        /**
         * Starts the extension on a built engine.
         *
         * @param engine the engine, built and running
         * @return what to close when the engine closes
         * @throws RuntimeException when it cannot start; the engine is then closed and its build fails
         */
        AutoCloseable start(Engine engine);
    }

    /**
     * The observers every session turn runs with: the telemetry given to the builder or made from
     * the {@code telemetry:} section. Add them to the context of a run of an agent handed out by
     * {@link #agent(String)} to trace it too: {@code RunContext.builder().observers(...)}.
     *
     * @return the observers; empty when the engine records no telemetry
     */
    public List<RunObserver> observers() {
        return parts.telemetry().observer == null ? List.of() : List.of(parts.telemetry().observer);
    }

    /**
     * The context windows by model id: {@link ModelTable#defaults()}, then the
     * configuration's {@code context_windows:}, then {@link Builder#contextWindows}, each laid
     * over the one before.
     *
     * @return the table
     */
    public ModelTable contextWindows() {
        return parts.agents().windows();
    }

    /** Collects what an engine is built from. */
    public static final class Builder extends EngineSettings {
        private Builder() {}

        /**
         * Builds the engine: checks the whole configuration, builds the providers, connects the
         * MCP servers and registers the agents. On any failure everything opened so far is closed.
         *
         * @return the running engine
         * @throws ConfigException naming the file, field and problem
         */
        public Engine build() {
            return EngineWiring.build(this);
        }
    }
}
