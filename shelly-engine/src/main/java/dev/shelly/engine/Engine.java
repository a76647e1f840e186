package dev.shelly.engine;

import dev.shelly.agent.Agent;
import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.Approvals;
import dev.shelly.agent.AskUser;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.agent.PermissionStore;
import dev.shelly.agent.ToolPolicy;
import dev.shelly.agent.Registry;
import dev.shelly.agent.RunObserver;
import dev.shelly.chats.Chat;
import dev.shelly.chats.ShellyException;
import dev.shelly.agent.context.ContextPolicy;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.ContextConfig;
import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.ConfigLoader;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.McpServerConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.engine.config.ToolboxRef;
import dev.shelly.storage.spi.FileSessionStore;
import dev.shelly.storage.SessionBusyException;
import dev.shelly.storage.SessionExistsException;
import dev.shelly.storage.SessionIds;
import dev.shelly.storage.SessionNotFoundException;
import dev.shelly.storage.SessionRecord;
import dev.shelly.storage.spi.RedisConfig;
import dev.shelly.storage.spi.SessionStore;
import dev.shelly.modeladapter.FallbackListener;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.ContextWindows;
import dev.shelly.modeladapter.PriceTable;
import dev.shelly.modeladapter.Usage;
import dev.shelly.storage.spi.SharedBackends;
import dev.shelly.storage.spi.SharedBackendsProvider;
import dev.shelly.modeladapter.RateLimiter;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.UsageTracker;
import dev.shelly.skills.Skill;
import dev.shelly.state.Store;
import dev.shelly.state.tasks.TaskBoard;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.otel.ShellyTelemetry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
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
    private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

    /** How long opening a session waits for another holder unless {@link Builder#sessionWait} says otherwise. */
    public static final Duration DEFAULT_SESSION_WAIT = Duration.ofSeconds(10);

    /** The namespace of the built-in {@code state} toolbox: its tools are {@code shared_state_*}. */
    public static final String STATE_NAMESPACE = "shared";

    private final EngineConfig config;
    private final ShellyDir dir;
    private final Registry registry = new Registry();
    private final EventBus<AgentEvent> events;
    private final UsageTracker usage;
    private final PriceTable prices;
    private final ContextWindows windows;
    private final Store store;
    private final TaskBoard tasks;
    private final SharedBackends shared;
    private final List<Skill> skills;
    private final String projectContext;
    private final Map<String, Completer> completers;
    private final Map<String, Supplier<ToolBox>> toolboxes;
    private final List<McpConnection> mcpClients;
    private final List<RunInterceptor> middleware;
    private final SessionStore sessions;
    private final Clock clock;
    private final Duration sessionWait;
    private final EngineTelemetry telemetry;
    private final ConcurrentHashMap<String, Slot> live = new ConcurrentHashMap<>();
    private final HumanInTheLoop human;
    /** The coding toolboxes of agents with a {@code coding:} section, by agent name. */
    private final Map<String, CodingSupport.Coding> coding;

    private Engine(Builder b, Backends backends, List<McpConnection> clients, Map<String, Supplier<ToolBox>> boxes,
            Map<String, Completer> models, EngineTelemetry telemetry, Map<String, CodingSupport.Coding> coding) {
        this.config = b.config;
        this.telemetry = telemetry;
        this.dir = b.dir;
        this.events = b.events != null ? b.events : new EventBus<>();
        this.usage = b.usage;
        this.prices = PriceTable.defaults().withAll(b.config.prices()).withAll(b.prices);
        this.windows = ContextWindows.defaults().withAll(b.config.contextWindows()).withAll(b.contextWindows);
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
        this.sessionWait = b.sessionWait;
        this.coding = coding;
        Map<String, java.util.function.UnaryOperator<ToolPolicy>> codingPolicies = new LinkedHashMap<>();
        coding.forEach((agent, c) -> codingPolicies.put(agent, c.policy()));
        this.human = new HumanInTheLoop(b.approvals, config, b.permissions, dir, clock, codingPolicies);
        // A store or folder given in code wins over the redis: section, which wins over .shelly/sessions.
        Path sessionsDir = b.sessionsDir != null ? b.sessionsDir : dir != null ? dir.sessionsDir() : null;
        this.sessions = b.sessionStore != null ? b.sessionStore
                : b.sessionsDir == null && shared != null ? shared.sessions()
                : sessionsDir == null ? null : FileSessionStore.in(sessionsDir);
        for (AgentConfig agent : config.agents()) {
            registry.register(agent.name(), agent.description(), () -> buildAgent(agent, new Chat(), false));
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
     * The tokens every completer of this engine used, those given in code included.
     *
     * @return the tracker
     */
    public UsageTracker usage() {
        return usage;
    }

    /**
     * The prices that turn the agents' usage into cost: {@link PriceTable#defaults()}, then the
     * configuration's {@code prices:}, then {@link Builder#prices(PriceTable)}, each laid over the
     * one before.
     *
     * @return the price table
     */
    public PriceTable prices() {
        return prices;
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
        return buildAgent(agentConfig(name), new Chat(), true);
    }

    /**
     * Starts a conversation with the entry agent under a new id (a UTC time and 128 random bits).
     *
     * @return a handle on the session; close it when done
     * @throws SessionBusyException when the store cannot hold the new session in time
     */
    public Session newSession() {
        return open(SessionIds.newId(clock), true);
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
        return open(SessionIds.check(id, "Engine.newSession id"), true);
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
        return open(SessionIds.check(id, "Engine.resume id"), false);
    }

    /**
     * The ids of the saved sessions.
     *
     * @return the ids, sorted; empty when sessions are not saved
     */
    public List<String> savedSessions() {
        return sessions == null ? List.of() : sessions.ids();
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
        SessionIds.check(id, "Engine.deleteSession id");
        if (live.containsKey(id)) {
            throw new SessionBusyException(id, "session '" + id + "' is open in this engine; close it before deleting it");
        }
        if (sessions == null) {
            throw new SessionNotFoundException(id);
        }
        sessions.delete(id, sessionWait);
        LOG.info("session {} deleted", id);
    }

    /**
     * How many sessions this engine holds open: those with a handle not yet closed.
     *
     * @return the count
     */
    public int openSessions() {
        return live.size();
    }

    /** One id's entry in the live map: the live session once opened, and its open handles. */
    private static final class Slot {
        final ReentrantLock lock = new ReentrantLock();
        LiveSession session;
        int handles;
        boolean gone;
    }

    private Session open(String id, boolean create) {
        while (true) {
            Slot slot = live.computeIfAbsent(id, k -> new Slot());
            slot.lock.lock();
            try {
                if (slot.gone) {
                    continue; // closed meanwhile; a fresh slot takes its place
                }
                if (slot.session == null) {
                    try {
                        slot.session = create ? create(id) : load(id);
                    } catch (RuntimeException | Error e) {
                        slot.gone = true;
                        live.remove(id, slot);
                        throw e;
                    }
                } else if (create) {
                    throw new SessionExistsException(id);
                }
                slot.handles++;
                return new Session(slot.session, () -> release(id, slot));
            } finally {
                slot.lock.unlock();
            }
        }
    }

    private void release(String id, Slot slot) {
        LiveSession last;
        slot.lock.lock();
        try {
            if (slot.gone || --slot.handles > 0) {
                return;
            }
            slot.gone = true;
            last = slot.session;
        } finally {
            slot.lock.unlock();
        }
        try {
            last.shutdown();
        } finally {
            live.remove(id, slot);
        }
    }

    private LiveSession create(String id) {
        String entry = config.entryAgent().orElseThrow();
        SessionStore.Lease lease = sessions == null ? null : sessions.open(id, sessionWait);
        try {
            if (lease != null && lease.load().isPresent()) {
                throw new SessionExistsException(id);
            }
            LiveSession session = new LiveSession(id, entry, clock.instant(), buildAgent(agentConfig(entry), new Chat(), false),
                    lease, clock, 0, Usage.ZERO, Cost.ZERO, events::publish, human.approvals(), human.timer(),
                    telemetry.observer);
            LOG.info("session {} opened with agent '{}'", id, entry);
            return session;
        } catch (RuntimeException | Error e) {
            if (lease != null) {
                lease.close();
            }
            throw e;
        }
    }

    private LiveSession load(String id) {
        if (sessions == null) {
            throw new ShellyException("this engine saves no sessions and session '" + id
                    + "' is not open: give the engine a .shelly folder, a sessions folder or a session store");
        }
        SessionStore.Lease lease = sessions.open(id, sessionWait);
        try {
            SessionRecord saved = lease.load().orElseThrow(() -> new SessionNotFoundException(id));
            if (!registry.contains(saved.entryAgent())) {
                throw new ShellyException("session '" + id + "' was held with agent '" + saved.entryAgent()
                        + "', which is no longer configured; configured agents: " + names(agentNames()));
            }
            Agent agent = buildAgent(agentConfig(saved.entryAgent()), new Chat(saved.messages()), false);
            Approvals approvals = human.approvals();
            approvals.restore(saved.approvals());
            LiveSession session = new LiveSession(id, saved.entryAgent(), saved.created(), agent, lease, clock,
                    saved.version(), saved.usage(), saved.cost(), events::publish, approvals, human.timer(),
                    telemetry.observer);
            session.scheduleExpiry();
            LOG.info("session {} resumed with agent '{}' ({} messages)", id, saved.entryAgent(), saved.messages().size());
            return session;
        } catch (RuntimeException | Error e) {
            lease.close();
            throw e;
        }
    }

    /** Closes the open sessions (cancelling their turns), the MCP clients (ending their subprocesses) and the event bus. */
    @Override
    public void close() {
        for (var entry : live.entrySet()) {
            Slot slot = entry.getValue();
            LiveSession session;
            slot.lock.lock();
            try {
                if (slot.gone) {
                    continue;
                }
                slot.gone = true;
                session = slot.session;
            } finally {
                slot.lock.unlock();
            }
            try {
                if (session != null) {
                    session.shutdown();
                }
            } catch (RuntimeException e) {
                LOG.warn("closing session {} failed: {}", entry.getKey(), e.toString());
            } finally {
                live.remove(entry.getKey(), slot);
            }
        }
        for (McpConnection client : mcpClients) {
            try {
                client.close().run();
            } catch (RuntimeException e) {
                LOG.warn("closing MCP server '{}' failed: {}", client.name(), e.toString());
            }
        }
        human.close();
        events.close();
        if (shared != null) {
            try {
                shared.close();
            } catch (RuntimeException e) {
                LOG.warn("closing the shared backends failed: {}", e.toString());
            }
        }
        telemetry.close();
    }

    /**
     * The observers every session turn runs with: the telemetry given to the builder or made from
     * the {@code telemetry:} section. Add them to the context of a run of an agent handed out by
     * {@link #agent(String)} to trace it too: {@code RunContext.builder().observers(...)}.
     *
     * @return the observers; empty when the engine records no telemetry
     */
    public List<RunObserver> observers() {
        return telemetry.observer == null ? List.of() : List.of(telemetry.observer);
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

    /**
     * An agent of the configuration. Only an agent handed to the application publishes to the bus
     * itself: a session's agent publishes through its turn's run context, and an agent the
     * registry spawns for a delegation inherits its parent run's listener, so every event reaches
     * the bus once.
     */
    private Agent buildAgent(AgentConfig a, Chat chat, boolean publishes) {
        Agent.Builder b = Agent.builder(a.name())
                .description(a.description())
                .instructions(a.instructions())
                .context(projectContext)
                .completer(completers.get(config.providerOf(a).name()))
                .skills(skillsOf(a))
                .registry(registry)
                .chat(chat)
                .prices(prices);
        if (publishes) {
            b.listener(events::publish);
        }
        if (a.promptCaching() != null) {
            b.promptCaching(a.promptCaching());
        }
        if (a.context() != null) {
            b.contextPolicy(contextPolicy(a));
        }
        if (a.options().maxIterations() != null) {
            b.maxIterations(a.options().maxIterations());
        }
        if (a.options().maxDelegationDepth() != null) {
            b.maxDelegationDepth(a.options().maxDelegationDepth());
        }
        if (a.options().maxToolResultChars() != null) {
            b.maxToolResultChars(a.options().maxToolResultChars());
        }
        if (!middleware.isEmpty()) {
            b.middleware(middleware.toArray(RunInterceptor[]::new));
        }
        List<ToolBox> boxes = new ArrayList<>();
        for (ToolboxRef ref : a.toolboxes()) {
            boxes.add(select(toolboxes.get(ref.name()).get(), ref));
        }
        CodingSupport.Coding code = coding.get(a.name());
        if (code != null) {
            boxes.add(code.toolBox());
        }
        if (human.asksUser(a.name())) {
            boxes.add(AskUser.toolbox());
        }
        return b.toolboxes(boxes.toArray(ToolBox[]::new)).build();
    }

    /**
     * An agent's context policy from its {@code context:} section: its window (else the table's
     * for its provider's model), its summariser, and the strategies; offloaded results go to
     * {@code .shelly/offload} in a project.
     */
    private ContextPolicy contextPolicy(AgentConfig a) {
        ContextConfig c = a.context();
        ContextPolicy.Builder p = ContextPolicy.builder().windows(windows);
        String model = config.providerOf(a).model();
        if (c.window() != null) {
            p.window(c.window());
        } else {
            windows.find(model).ifPresent(w -> p.window(w.tokens()));
        }
        if (c.summarizer() != null) {
            p.summarizer(completers.get(c.summarizer()));
        }
        Path project = dir == null ? null : dir.projectDir();
        Path offload = dir == null ? null : dir.root().resolve("offload");
        return p.strategies(c.strategies(offload, project)).build();
    }

    /**
     * The context windows by model id: {@link ContextWindows#defaults()}, then the
     * configuration's {@code context_windows:}, then {@link Builder#contextWindows}, each laid
     * over the one before.
     *
     * @return the table
     */
    public ContextWindows contextWindows() {
        return windows;
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
        private final List<RunInterceptor> middleware = new ArrayList<>();
        private String projectContext;
        private Path sessionsDir;
        private SessionStore sessionStore;
        private Duration sessionWait = DEFAULT_SESSION_WAIT;
        private EventBus<AgentEvent> events;
        private UsageTracker usage = new UsageTracker();
        private PriceTable prices = PriceTable.empty();
        private ContextWindows contextWindows = ContextWindows.empty();
        private Store store;
        private TaskBoard tasks;
        private List<Skill> skills = List.of();
        private Clock clock = Clock.systemUTC();
        private final HumanInTheLoop.Settings approvals = new HumanInTheLoop.Settings();
        private PermissionStore permissions;
        private EngineTelemetry telemetry;
        private FallbackListener fallbackListener = FallbackListener.NONE;

        private Builder() {}

        /**
         * The tool policy of one agent: which tools it calls freely, which never, and which only
         * after a person approves the call (see {@link Session} on decisions). Wins over the
         * agent's policy in the configuration.
         *
         * @param agent a configured agent
         * @param policy its policy
         * @return this builder
         */
        public Builder toolPolicy(String agent, ToolPolicy policy) {
            approvals.policy(agent, policy);
            return this;
        }

        /**
         * The tool policy of agents that have none of their own; {@link ToolPolicy#ALLOW_ALL}
         * unless set.
         *
         * @param policy the policy
         * @return this builder
         */
        public Builder defaultToolPolicy(ToolPolicy policy) {
            approvals.defaultPolicy(policy);
            return this;
        }

        /**
         * Offers the {@code ask_user} tool to agents, through which the model asks the person a
         * question and pauses the session until {@link Session#answer} replies.
         *
         * @param agents configured agents
         * @return this builder
         */
        public Builder askUser(String... agents) {
            approvals.askUser(agents);
            return this;
        }

        /**
         * How long a tool call waits for a decision before it is denied, or its turn cancelled;
         * calls wait for ever unless set. The time counts from when the call began waiting,
         * across restarts.
         *
         * @param value the time; positive
         * @param action what happens then
         * @return this builder
         */
        public Builder decisionTimeout(Duration value, Approvals.OnTimeout action) {
            approvals.timeout(value, action);
            return this;
        }

        /**
         * Where "always for this project" decisions are kept; by default
         * {@code .shelly/permissions.json} of the engine's folder (none without a folder).
         *
         * @param value the store
         * @return this builder
         */
        public Builder permissionStore(PermissionStore value) {
            this.permissions = requireNonNull(value, "Engine.Builder permissionStore");
            return this;
        }

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
         * Puts these links around the runs of every agent the engine builds, as the agents'
         * {@linkplain dev.shelly.agent.Agent.Builder#middleware middleware} (first = outermost).
         *
         * @param more the links
         * @return this builder
         */
        public Builder middleware(RunInterceptor... more) {
            for (RunInterceptor m : requireNonNull(more, "Engine.Builder.middleware")) {
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
         * Saves sessions in this folder instead of {@code .shelly/sessions} (or Redis, when the
         * configuration has a {@code redis:} section).
         *
         * @param value the folder
         * @return this builder
         */
        public Builder sessionsDir(Path value) {
            this.sessionsDir = value;
            return this;
        }

        /**
         * Keeps sessions in this store (a backend of your own) instead of files, or Redis when the
         * configuration has a {@code redis:} section.
         *
         * @param value the store
         * @return this builder
         */
        public Builder sessionStore(SessionStore value) {
            this.sessionStore = requireNonNull(value, "Engine.Builder.sessionStore");
            return this;
        }

        /**
         * Sets how long opening a session waits while another engine or process holds it, before
         * it fails with {@link SessionBusyException}; {@link #DEFAULT_SESSION_WAIT} unless set.
         *
         * @param value the wait; zero to fail at once
         * @return this builder
         */
        public Builder sessionWait(Duration value) {
            if (value == null || value.isNegative()) {
                throw new IllegalArgumentException("Engine.Builder.sessionWait must be zero or positive, was " + value);
            }
            this.sessionWait = value;
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
         * Prices models beyond (or instead of) the shipped list and the configuration's
         * {@code prices:}; these win over both.
         *
         * @param value the prices
         * @return this builder
         */
        public Builder prices(PriceTable value) {
            this.prices = requireNonNull(value, "Engine.Builder.prices");
            return this;
        }

        /**
         * Context windows laid over the defaults and the configuration's
         * {@code context_windows:}; these win over both.
         *
         * @param value the windows
         * @return this builder
         */
        public Builder contextWindows(ContextWindows value) {
            this.contextWindows = requireNonNull(value, "Engine.Builder.contextWindows");
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
         * Traces every session turn with this telemetry (spans, metrics and MDC ids of
         * {@code dev.shelly:shelly-otel}), carries its trace context into the calls to the configured
         * MCP servers, and counts the retries of the providers the engine builds. Wins over the
         * configuration's {@code telemetry:} section. The engine does not close it.
         *
         * @param value the telemetry, for example {@code ShellyTelemetry.create(openTelemetry)}
         * @return this builder
         */
        public Builder telemetry(ShellyTelemetry value) {
            this.telemetry = EngineTelemetry.given(requireNonNull(value, "Engine.Builder.telemetry"));
            return this;
        }

        /**
         * Tells this listener each time a provider's request moves to one of its {@code fallback:}
         * providers (besides the WARN log line and, with telemetry, the span event and counter).
         *
         * @param value the listener
         * @return this builder
         */
        public Builder fallbackListener(FallbackListener value) {
            this.fallbackListener = requireNonNull(value, "Engine.Builder.fallbackListener");
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
            approvals.check(config);
            if (projectContext == null) {
                projectContext = dir == null ? "" : dir.projectContext();
            }
            EngineTelemetry traced = telemetry != null ? telemetry
                    : config.telemetry().map(t -> EngineTelemetry.configured(t, config)).orElse(EngineTelemetry.OFF);
            SharedBackends shared;
            try {
                shared = config.redis().map(this::openShared).orElse(null);
            } catch (RuntimeException e) {
                traced.close();
                throw e;
            }
            try {
                return build(shared, traced);
            } catch (RuntimeException e) {
                traced.close();
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

        private Engine build(SharedBackends shared, EngineTelemetry traced) {
            Store useStore = store != null ? store : shared != null ? new Store(shared.state()) : new Store();
            TaskBoard useTasks = tasks != null ? tasks
                    : shared != null ? new TaskBoard(shared.tasks(), Clock.systemUTC()) : new TaskBoard();
            Map<String, Completer> models = new LinkedHashMap<>();
            ProviderKinds kinds = null;
            for (int i = 0; i < config.providers().size(); i++) {
                ProviderConfig p = config.providers().get(i);
                Completer override = completerOverrides.get(p.name());
                if (override != null) {
                    // A completer given in code does not know the engine's tracker: count its replies here.
                    models.put(p.name(), new CountingCompleter(override, usage));
                    continue;
                }
                if (kinds == null) {
                    kinds = ProviderKinds.load();
                }
                models.put(p.name(), kinds.build(config, i, env, usage,
                        shared == null ? RateLimiter::inProcess : limit -> shared.rateLimiter(p.name(), limit),
                        traced.retries));
            }
            for (String name : completerOverrides.keySet()) {
                if (!models.containsKey(name)) {
                    throw new ConfigException(config.file().orElse(null), 0, "providers", "a completer was given for provider '"
                            + name + "', which is not configured; configured providers: "
                            + String.join(", ", models.keySet()));
                }
            }
            FallbackListener told = fallbackListener;
            Map<String, Completer> chained = ProviderChains.chain(config, models, event -> {
                traced.fallbacks.onFallback(event);
                told.onFallback(event);
            });
            List<McpConnection> clients = new ArrayList<>();
            Map<String, Supplier<ToolBox>> boxes = new LinkedHashMap<>();
            try {
                ToolBox stateTools = useStore.tools(STATE_NAMESPACE);
                ToolBox taskTools = useTasks.tools();
                boxes.put("state", () -> stateTools);
                boxes.put("tasks", () -> taskTools);
                extraToolboxes.forEach((name, box) -> boxes.put(name, () -> box));
                Path workDir = dir == null ? Path.of("").toAbsolutePath() : dir.projectDir();
                // McpServers names shelly-mcp's types (an optional dependency): touch it only for MCP servers.
                McpSupport.require(config, Engine.class.getClassLoader());
                for (int i = 0; i < config.mcpServers().size(); i++) {
                    McpServerConfig server = config.mcpServers().get(i);
                    McpConnection client = McpServers.connect(server, i, config, workDir, traced.mcpMeta, models);
                    clients.add(client);
                    boxes.put(server.name(), client.toolBox());
                }
                checkToolSelections(boxes);
                Map<String, CodingSupport.Coding> coding = CodingSupport.build(config, workDir, Engine.class.getClassLoader());
                return new Engine(this, new Backends(useStore, useTasks, shared), clients, boxes, chained, traced, coding);
            } catch (RuntimeException e) {
                for (McpConnection c : clients) {
                    try {
                        c.close().run();
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
