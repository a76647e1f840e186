package dev.shelly.engine;

import dev.shelly.agent.Agent;
import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.Middleware;
import dev.shelly.agent.Registry;
import dev.shelly.chats.Chat;
import dev.shelly.chats.ShellyException;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.ConfigLoader;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.McpServerConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.engine.config.ToolboxRef;
import dev.shelly.engine.session.SessionRecord;
import dev.shelly.engine.config.RedisConfig;
import dev.shelly.engine.session.SessionStore;
import dev.shelly.engine.spi.SharedBackends;
import dev.shelly.engine.spi.SharedBackendsProvider;
import dev.shelly.modeladapter.RateLimiter;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.UsageTracker;
import dev.shelly.skills.Skill;
import dev.shelly.state.Store;
import dev.shelly.state.tasks.TaskBoard;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.mcp.McpToolClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * The composition root: builds the providers, connects the MCP servers, loads skills and
 * project context, and registers every configured agent as a factory in a {@link Registry}.
 *
 * <pre>{@code
 * try (Engine engine = Engine.open(Path.of("."))) {          // finds .shelly/config.yaml
 *     engine.events().subscribe(event -> log.info("{}", event));
 *     Session session = engine.newSession();
 *     System.out.println(session.send("What does this project do?").text());
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
 */
public final class Engine implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

    /** The namespace of the built-in {@code state} toolbox: its tools are {@code shared_state_*}. */
    public static final String STATE_NAMESPACE = "shared";

    private final EngineConfig config;
    private final ShellyDir dir;
    private final Registry registry = new Registry();
    private final EventBus<AgentEvent> events;
    private final UsageTracker usage;
    private final Store store;
    private final TaskBoard tasks;
    private final SharedBackends shared;
    private final List<Skill> skills;
    private final String projectContext;
    private final Map<String, Completer> completers;
    private final Map<String, Supplier<ToolBox>> toolboxes;
    private final List<McpToolClient> mcpClients;
    private final List<Middleware> middleware;
    private final SessionStore sessions;
    private final Clock clock;
    private final List<Session> openSessions = Collections.synchronizedList(new ArrayList<>());

    private Engine(Builder b, Backends backends, List<McpToolClient> clients, Map<String, Supplier<ToolBox>> boxes,
            Map<String, Completer> models) {
        this.config = b.config;
        this.dir = b.dir;
        this.events = b.events != null ? b.events : new EventBus<>();
        this.usage = b.usage;
        this.store = backends.store();
        this.tasks = backends.tasks();
        this.shared = backends.shared();
        this.skills = b.skills;
        this.projectContext = b.projectContext;
        this.completers = models;
        this.toolboxes = boxes;
        this.mcpClients = clients;
        this.middleware = List.copyOf(b.middleware);
        this.clock = b.clock;
        Path sessionsDir = b.sessionsDir != null ? b.sessionsDir : dir != null ? dir.sessionsDir() : null;
        this.sessions = sessionsDir == null ? null : new SessionStore(sessionsDir, JsonMapper.builder().build());
        for (AgentConfig agent : config.agents()) {
            registry.register(agent.name(), agent.description(), () -> buildAgent(agent, new Chat()));
        }
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
        return config;
    }

    /**
     * The {@code .shelly/} folder, if the engine has one.
     *
     * @return the folder, or empty for an engine built in code only
     */
    public Optional<ShellyDir> dir() {
        return Optional.ofNullable(dir);
    }

    /**
     * Every configured agent, as a factory.
     *
     * @return the registry
     */
    public Registry registry() {
        return registry;
    }

    /**
     * The events of every agent the engine runs, delegated children included.
     *
     * @return the bus
     */
    public EventBus<AgentEvent> events() {
        return events;
    }

    /**
     * The tokens every provider of this engine used.
     *
     * @return the tracker
     */
    public UsageTracker usage() {
        return usage;
    }

    /**
     * The blackboard behind the built-in {@code state} toolbox.
     *
     * @return the store
     */
    public Store store() {
        return store;
    }

    /**
     * The task board behind the built-in {@code tasks} toolbox.
     *
     * @return the board
     */
    public TaskBoard tasks() {
        return tasks;
    }

    /**
     * The skills the engine loaded.
     *
     * @return the skills, sorted by name
     */
    public List<Skill> skills() {
        return skills;
    }

    /**
     * The project context agents see.
     *
     * @return the text, empty when there is none
     */
    public String projectContext() {
        return projectContext;
    }

    /**
     * A fresh agent, as the registry would spawn it at the top of a tree.
     *
     * @param name a configured agent
     * @return the agent, with a new chat
     * @throws IllegalArgumentException naming the configured agents when there is no such agent
     */
    public Agent agent(String name) {
        return buildAgent(agentConfig(name), new Chat());
    }

    /**
     * Starts a conversation with the entry agent.
     *
     * @return the session
     */
    public Session newSession() {
        String entry = config.entryAgent().orElseThrow();
        Session session = new Session(Session.newId(clock), entry, clock.instant(), buildAgent(agentConfig(entry), new Chat()),
                sessions, clock, openSessions::remove);
        openSessions.add(session);
        return session;
    }

    /**
     * Continues a saved conversation.
     *
     * @param id the session's id
     * @return the session, holding the saved messages
     * @throws ShellyException when sessions are not saved by this engine, or there is no such
     *     session (the saved ones are listed)
     */
    public Session resume(String id) {
        SessionRecord saved = requireSessions().load(id);
        if (!registry.contains(saved.entryAgent())) {
            throw new ShellyException("session '" + id + "' was held with agent '" + saved.entryAgent()
                    + "', which is no longer configured; configured agents: " + names(agentNames()));
        }
        Agent agent = buildAgent(agentConfig(saved.entryAgent()), new Chat(saved.messages()));
        Session session = new Session(saved.id(), saved.entryAgent(), saved.created(), agent, sessions, clock,
                openSessions::remove);
        openSessions.add(session);
        return session;
    }

    /**
     * The ids of the saved sessions.
     *
     * @return the ids, sorted; empty when sessions are not saved
     */
    public List<String> savedSessions() {
        return sessions == null ? List.of() : sessions.ids();
    }

    private SessionStore requireSessions() {
        if (sessions == null) {
            throw new ShellyException("this engine saves no sessions: give it a .shelly folder or a sessions folder");
        }
        return sessions;
    }

    /** Closes the open sessions, the MCP clients (ending their subprocesses) and the event bus. */
    @Override
    public void close() {
        for (Session s : List.copyOf(openSessions)) {
            s.close();
        }
        for (McpToolClient client : mcpClients) {
            try {
                client.close();
            } catch (RuntimeException e) {
                LOG.warn("closing MCP server '{}' failed: {}", client.name(), e.toString());
            }
        }
        events.close();
        if (shared != null) {
            try {
                shared.close();
            } catch (RuntimeException e) {
                LOG.warn("closing the shared backends failed: {}", e.toString());
            }
        }
    }

    /** The blackboard and board the engine runs on, and the shared backends they may live in. */
    private record Backends(Store store, TaskBoard tasks, SharedBackends shared) {}

    private AgentConfig agentConfig(String name) {
        for (AgentConfig a : config.agents()) {
            if (a.name().equals(name)) {
                return a;
            }
        }
        throw new IllegalArgumentException("no agent '" + name + "'; configured agents: " + names(agentNames()));
    }

    private Set<String> agentNames() {
        Set<String> names = new LinkedHashSet<>();
        config.agents().forEach(a -> names.add(a.name()));
        return names;
    }

    private Agent buildAgent(AgentConfig a, Chat chat) {
        Agent.Builder b = Agent.builder(a.name())
                .description(a.description())
                .instructions(a.instructions())
                .context(projectContext)
                .completer(completers.get(config.providerOf(a).name()))
                .skills(skillsOf(a))
                .registry(registry)
                .chat(chat)
                .listener(events::publish);
        if (a.maxIterations() != null) {
            b.maxIterations(a.maxIterations());
        }
        if (a.maxDelegationDepth() != null) {
            b.maxDelegationDepth(a.maxDelegationDepth());
        }
        if (!middleware.isEmpty()) {
            b.middleware(middleware.toArray(Middleware[]::new));
        }
        List<ToolBox> boxes = new ArrayList<>();
        for (ToolboxRef ref : a.toolboxes()) {
            boxes.add(select(toolboxes.get(ref.name()).get(), ref));
        }
        return b.toolboxes(boxes.toArray(ToolBox[]::new)).build();
    }

    private List<Skill> skillsOf(AgentConfig a) {
        if (a.skills() == null) {
            return skills;
        }
        List<Skill> chosen = new ArrayList<>();
        for (Skill s : skills) {
            if (a.skills().contains(s.name())) {
                chosen.add(s);
            }
        }
        return chosen;
    }

    private static ToolBox select(ToolBox box, ToolboxRef ref) {
        if (ref.tools().isEmpty()) {
            return box;
        }
        List<Tool> chosen = new ArrayList<>();
        for (String name : ref.tools()) {
            box.get(name).ifPresent(chosen::add);
        }
        return ToolBox.of(chosen.toArray(Tool[]::new));
    }

    private static String names(Set<String> names) {
        return String.join(", ", new TreeSet<>(names));
    }

    /** Collects what an engine is built from. */
    public static final class Builder {
        private EngineConfig config;
        private ShellyDir dir;
        private Function<String, String> env = System::getenv;
        private final Map<String, Completer> completerOverrides = new LinkedHashMap<>();
        private final Map<String, ToolBox> extraToolboxes = new LinkedHashMap<>();
        private final List<Skill> extraSkills = new ArrayList<>();
        private final List<Middleware> middleware = new ArrayList<>();
        private String projectContext;
        private Path sessionsDir;
        private EventBus<AgentEvent> events;
        private UsageTracker usage = new UsageTracker();
        private Store store;
        private TaskBoard tasks;
        private List<Skill> skills = List.of();
        private Clock clock = Clock.systemUTC();

        private Builder() {}

        /**
         * Sets the configuration; without it, {@code .shelly/config.yaml} of {@link #dir} is read.
         *
         * @param value the configuration
         * @return this builder
         */
        public Builder config(EngineConfig value) {
            this.config = value;
            return this;
        }

        /**
         * Sets the {@code .shelly/} folder: configuration (unless given), skills, context, sessions.
         *
         * @param value the folder
         * @return this builder
         */
        public Builder dir(ShellyDir value) {
            this.dir = value;
            return this;
        }

        /**
         * Sets how environment variables are looked up (config interpolation, provider keys).
         *
         * @param value the lookup
         * @return this builder
         */
        public Builder environment(Function<String, String> value) {
            this.env = requireNonNull(value, "Engine.Builder.environment");
            return this;
        }

        /**
         * Answers for a configured provider with this completer instead of building it: a
         * scripted model in tests and examples, or a completer you built yourself.
         *
         * @param providerName a configured provider's name
         * @param completer the completer
         * @return this builder
         */
        public Builder completer(String providerName, Completer completer) {
            if (providerName == null || providerName.isBlank()) {
                throw new IllegalArgumentException("Engine.Builder.completer providerName must not be null or blank");
            }
            completerOverrides.put(providerName,
                    requireNonNull(completer, "Engine.Builder.completer for provider '" + providerName + "'"));
            return this;
        }

        /**
         * Adds a toolbox of your own that agents can name in their {@code toolboxes}.
         *
         * @param name the name agents use; not one of the built-in toolboxes ({@code state},
         *     {@code tasks})
         * @param toolbox the tools
         * @return this builder
         * @throws IllegalArgumentException when the name is blank or a built-in toolbox's
         */
        public Builder toolbox(String name, ToolBox toolbox) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("Engine.Builder.toolbox name must not be null or blank");
            }
            if (EngineConfig.BUILT_IN_TOOLBOXES.contains(name)) {
                throw new IllegalArgumentException("Engine.Builder.toolbox name '" + name
                        + "' is the name of a built-in toolbox; choose another name");
            }
            extraToolboxes.put(name, requireNonNull(toolbox, "Engine.Builder.toolbox '" + name + "'"));
            return this;
        }

        /**
         * Adds skills besides those in {@code .shelly/skills}.
         *
         * @param more the skills
         * @return this builder
         */
        public Builder skills(List<Skill> more) {
            for (Skill skill : requireNonNull(more, "Engine.Builder.skills")) {
                if (skill == null) {
                    throw new IllegalArgumentException("Engine.Builder.skills must not hold null");
                }
                extraSkills.add(skill);
            }
            return this;
        }

        /**
         * Wraps every agent the engine builds in this middleware (first = outermost).
         *
         * @param more the middleware
         * @return this builder
         */
        public Builder middleware(Middleware... more) {
            for (Middleware m : requireNonNull(more, "Engine.Builder.middleware")) {
                if (m == null) {
                    throw new IllegalArgumentException("Engine.Builder.middleware must not hold null");
                }
                middleware.add(m);
            }
            return this;
        }

        /**
         * Sets the project context; without it, the curated {@code .shelly/*.md} files are used.
         *
         * @param value the context
         * @return this builder
         */
        public Builder projectContext(String value) {
            this.projectContext = value;
            return this;
        }

        /**
         * Saves sessions in this folder instead of {@code .shelly/sessions}.
         *
         * @param value the folder
         * @return this builder
         */
        public Builder sessionsDir(Path value) {
            this.sessionsDir = value;
            return this;
        }

        /**
         * Publishes agent events on this bus instead of a new one.
         *
         * @param value the bus
         * @return this builder
         */
        public Builder events(EventBus<AgentEvent> value) {
            this.events = value;
            return this;
        }

        /**
         * Counts every provider's tokens in this tracker.
         *
         * @param value the tracker
         * @return this builder
         */
        public Builder usage(UsageTracker value) {
            this.usage = requireNonNull(value, "Engine.Builder.usage");
            return this;
        }

        /**
         * Uses this store behind the {@code state} toolbox, instead of one in memory (or in Redis,
         * when the configuration has a {@code redis:} section).
         *
         * @param value the store
         * @return this builder
         */
        public Builder store(Store value) {
            this.store = requireNonNull(value, "Engine.Builder.store");
            return this;
        }

        /**
         * Uses this board behind the {@code tasks} toolbox, instead of one in memory (or in Redis,
         * when the configuration has a {@code redis:} section).
         *
         * @param value the board
         * @return this builder
         */
        public Builder tasks(TaskBoard value) {
            this.tasks = requireNonNull(value, "Engine.Builder.tasks");
            return this;
        }

        /**
         * Sets the clock for session ids and timestamps.
         *
         * @param value the clock
         * @return this builder
         */
        public Builder clock(Clock value) {
            this.clock = requireNonNull(value, "Engine.Builder.clock");
            return this;
        }

        /**
         * Builds the engine: checks the whole configuration, builds the providers, connects the
         * MCP servers and registers the agents. On any failure everything opened so far is closed.
         *
         * @return the running engine
         * @throws ConfigException naming the file, field and problem
         */
        public Engine build() {
            if (config == null) {
                if (dir == null) {
                    throw new ConfigException(null, 0, "", "the engine needs a configuration or a .shelly folder");
                }
                config = ConfigLoader.load(dir.configFile(), env);
            }
            skills = loadSkills();
            Set<String> skillNames = new TreeSet<>();
            skills.forEach(s -> skillNames.add(s.name()));
            config.check(skillNames, extraToolboxes.keySet());
            if (projectContext == null) {
                projectContext = dir == null ? "" : dir.projectContext();
            }
            SharedBackends shared = config.redis().map(this::openShared).orElse(null);
            try {
                return build(shared);
            } catch (RuntimeException e) {
                if (shared != null) {
                    try {
                        shared.close();
                    } catch (RuntimeException suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
                throw e;
            }
        }

        /**
         * Opens the backends of the {@code redis:} section through the provider that
         * {@code shelly-redis} registers; the engine does not depend on that module.
         */
        private SharedBackends openShared(RedisConfig redis) {
            List<SharedBackendsProvider> found = new ArrayList<>();
            ServiceLoader.load(SharedBackendsProvider.class, Engine.class.getClassLoader()).forEach(found::add);
            if (found.isEmpty()) {
                throw config.errorAt("redis", "the redis section needs dev.shelly:shelly-redis on the class path "
                        + "(no " + SharedBackendsProvider.class.getName() + " was found)");
            }
            if (found.size() > 1) {
                throw config.errorAt("redis", "more than one " + SharedBackendsProvider.class.getName()
                        + " is on the class path: " + found.stream().map(f -> f.getClass().getName()).toList());
            }
            try {
                return found.getFirst().open(redis);
            } catch (ShellyException | IllegalArgumentException e) {
                ConfigException error = config.errorAt("redis.url", "cannot open Redis at " + redis.safeUrl() + ": "
                        + e.getMessage());
                error.initCause(e);
                throw error;
            }
        }

        private Engine build(SharedBackends shared) {
            Store useStore = store != null ? store : shared != null ? new Store(shared.state()) : new Store();
            TaskBoard useTasks = tasks != null ? tasks
                    : shared != null ? new TaskBoard(shared.tasks(), Clock.systemUTC()) : new TaskBoard();
            Map<String, Completer> models = new LinkedHashMap<>();
            for (int i = 0; i < config.providers().size(); i++) {
                ProviderConfig p = config.providers().get(i);
                Completer override = completerOverrides.get(p.name());
                models.put(p.name(), override != null ? override
                        : ProviderFactory.build(p, i, config, env, usage,
                                shared == null ? RateLimiter::inProcess : limit -> shared.rateLimiter(p.name(), limit)));
            }
            for (String name : completerOverrides.keySet()) {
                if (!models.containsKey(name)) {
                    throw new ConfigException(config.file().orElse(null), 0, "providers", "a completer was given for provider '"
                            + name + "', which is not configured; configured providers: "
                            + String.join(", ", models.keySet()));
                }
            }
            List<McpToolClient> clients = new ArrayList<>();
            Map<String, Supplier<ToolBox>> boxes = new LinkedHashMap<>();
            try {
                ToolBox stateTools = useStore.tools(STATE_NAMESPACE);
                ToolBox taskTools = useTasks.tools();
                boxes.put("state", () -> stateTools);
                boxes.put("tasks", () -> taskTools);
                extraToolboxes.forEach((name, box) -> boxes.put(name, () -> box));
                Path workDir = dir == null ? Path.of("").toAbsolutePath() : dir.projectDir();
                for (int i = 0; i < config.mcpServers().size(); i++) {
                    McpServerConfig server = config.mcpServers().get(i);
                    McpToolClient client = McpServers.connect(server, i, config, workDir);
                    clients.add(client);
                    boxes.put(server.name(), client::toolBox);
                }
                checkToolSelections(boxes);
                return new Engine(this, new Backends(useStore, useTasks, shared), clients, boxes, models);
            } catch (RuntimeException e) {
                for (McpToolClient c : clients) {
                    try {
                        c.close();
                    } catch (RuntimeException suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
                throw e;
            }
        }

        private static <T> T requireNonNull(T value, String what) {
            if (value == null) {
                throw new IllegalArgumentException(what + " must not be null");
            }
            return value;
        }

        private List<Skill> loadSkills() {
            List<Skill> all = new ArrayList<>();
            if (dir != null && Files.isDirectory(dir.skillsDir())) {
                all.addAll(Skill.loadDir(dir.skillsDir()));
            }
            all.addAll(extraSkills);
            all.sort(java.util.Comparator.comparing(Skill::name));
            for (int i = 1; i < all.size(); i++) {
                if (all.get(i).name().equals(all.get(i - 1).name())) {
                    throw new ConfigException(null, 0, "skills", "two skills are named '" + all.get(i).name() + "'");
                }
            }
            return List.copyOf(all);
        }

        private void checkToolSelections(Map<String, Supplier<ToolBox>> boxes) {
            for (int i = 0; i < config.agents().size(); i++) {
                AgentConfig agent = config.agents().get(i);
                for (int j = 0; j < agent.toolboxes().size(); j++) {
                    ToolboxRef ref = agent.toolboxes().get(j);
                    ToolBox box = boxes.get(ref.name()).get();
                    for (int k = 0; k < ref.tools().size(); k++) {
                        String tool = ref.tools().get(k);
                        if (!box.contains(tool)) {
                            throw config.errorAt("agents[" + i + "].toolboxes[" + j + "].tools[" + k + "]",
                                    "toolbox '" + ref.name() + "' has no tool '" + tool + "'; its tools: "
                                            + (box.names().isEmpty() ? "(none)" : String.join(", ", new TreeSet<>(box.names()))));
                        }
                    }
                }
            }
        }
    }
}
