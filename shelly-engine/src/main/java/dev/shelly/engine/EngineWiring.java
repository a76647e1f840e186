package dev.shelly.engine;

import dev.shelly.agent.Agent;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.agent.ToolPolicy;
import dev.shelly.chats.ShellyException;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.ConfigLoader;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.McpServerConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.FallbackCompleter.FallbackListener;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.modeladapter.RateLimitedCompleter.RateLimiter;
import dev.shelly.modeladapter.RetryingCompleter.RetryListener;
import dev.shelly.skills.Skill;
import dev.shelly.state.Store;
import dev.shelly.state.tasks.TaskBoard;
import dev.shelly.storage.spi.FileSessionStore;
import dev.shelly.storage.spi.RedisConfig;
import dev.shelly.storage.spi.SessionStore;
import dev.shelly.storage.spi.SharedBackends;
import dev.shelly.storage.spi.SharedBackendsProvider;
import dev.shelly.tools.ToolBox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds an engine from its builder's settings: loads and checks the configuration, loads the
 * skills, opens the shared backends of a {@code redis:} section, builds the providers, connects
 * the MCP servers, gathers the toolboxes, and hands what it made to the {@link AgentFactory} and
 * the {@link SessionManager}. On any failure, everything opened so far is closed.
 */
final class EngineWiring {
    private static final Logger LOG = LoggerFactory.getLogger(EngineWiring.class);
    /** The sections a module started with the engine serves, with the module, for the error when it is missing. */
    private static final Map<String, String> EXTENSION_MODULES = Map.of("console", "dev.shelly:shelly-console");

    private final EngineSettings settings;
    private EngineConfig config;
    private final List<String> warnings = new ArrayList<>();
    /** The provider kinds on the class path, found when the first provider is built by its kind. */
    private ProviderKinds kinds;
    /** Names the run of a provider's retries and fallbacks on the bus; made with the bus. */
    private ModelCallEvents modelEvents;

    private EngineWiring(EngineSettings settings) {
        this.settings = settings;
    }

    /**
     * Builds the engine the settings describe.
     *
     * @throws ConfigException naming the file, field and problem
     */
    static Engine build(EngineSettings settings) {
        return new EngineWiring(settings).build();
    }

    private Engine build() {
        EngineSettings s = settings;
        ShellyDir user = s.dir == null ? null : s.userDirSet ? s.userDir : ShellyDir.user(s.env).orElse(null);
        if (user != null && user.equals(s.dir)) {
            user = null; // the project's own folder is not read twice
        }
        if (s.config == null) {
            if (s.dir == null) {
                throw new ConfigException(null, 0, "", "the engine needs a configuration or a .shelly folder");
            }
            s.config = ConfigLoader.loadSettings(s.dir.root(), user == null ? null : user.root(), s.env);
        }
        config = s.config;
        List<Skill> skills = loadSkills(user);
        TreeSet<String> skillNames = new TreeSet<>();
        skills.forEach(skill -> skillNames.add(skill.name()));
        config.check(skillNames, s.toolboxes.keySet());
        TreeSet<String> providerNames = new TreeSet<>();
        config.providers().forEach(p -> providerNames.add(p.name()));
        Map<String, ConfigLoader.SkillTools> skillTools = SkillFolders.read(skills, s.env, providerNames);
        s.approvals.check(config);
        String projectContext = s.projectContext != null ? s.projectContext : s.dir == null ? "" : s.dir.projectContext();
        EngineTelemetry traced = s.telemetry != null ? s.telemetry
                : config.telemetry().map(t -> EngineTelemetry.configured(t, config)).orElse(EngineTelemetry.OFF);
        SharedBackends shared;
        try {
            shared = config.redis().map(this::openShared).orElse(null);
        } catch (RuntimeException e) {
            traced.close();
            throw e;
        }
        Engine engine;
        try {
            engine = build(skills, skillTools, projectContext, shared, traced);
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
        return withExtensions(engine);
    }

    /**
     * Starts what the configured extension sections ask for ({@code console:}), each through the
     * {@link Engine.Extension} whose {@link Engine.Extension#section()} names it; the engine does
     * not depend on the modules that register them, and looks for none when no such section is
     * configured.
     */
    private Engine withExtensions(Engine engine) {
        List<String> sections = new ArrayList<>();
        if (config.console().isPresent()) {
            sections.add("console");
        }
        if (sections.isEmpty()) {
            return engine;
        }
        List<AutoCloseable> started = new ArrayList<>();
        try {
            Map<String, Engine.Extension> bySection = new HashMap<>();
            for (Engine.Extension e : ServiceLoader.load(Engine.Extension.class, Engine.class.getClassLoader())) {
                bySection.put(e.section(), e);
            }
            for (String section : sections) {
                Engine.Extension extension = bySection.get(section);
                if (extension == null) {
                    throw config.errorAt(section, "the " + section + " section needs " + EXTENSION_MODULES.get(section)
                            + " on the class path");
                }
                try {
                    started.add(extension.start(engine));
                } catch (RuntimeException e) {
                    ConfigException error = config.errorAt(section, "the " + section + " could not start: " + e.getMessage());
                    error.initCause(e);
                    throw error;
                }
                engine.extensions(started);
            }
            return engine;
        } catch (RuntimeException e) {
            engine.close();
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

    private Engine build(List<Skill> skills, Map<String, ConfigLoader.SkillTools> skillTools, String projectContext,
            SharedBackends shared, EngineTelemetry traced) {
        EngineSettings s = settings;
        Store store = s.store != null ? s.store : shared != null ? new Store(shared.state()) : new Store();
        TaskBoard tasks = s.tasks != null ? s.tasks
                : shared != null ? new TaskBoard(shared.tasks(), Clock.systemUTC(),
                        config.redis().map(RedisConfig::taskLease).orElse(TaskBoard.DEFAULT_LEASE))
                : new TaskBoard();
        EventBus<dev.shelly.agent.AgentEvent> events = s.events != null ? s.events : new EventBus<>();
        modelEvents = new ModelCallEvents(events::publish, () -> events.subscriberCount() > 0);
        Map<String, Completer> models = providers(shared, traced);
        FallbackListener onBus = modelEvents.fallbacks();
        ProviderChains chains = new ProviderChains(config, models, event -> {
            traced.fallbacks.onFallback(event);
            s.fallbackListener.onFallback(event);
            onBus.onFallback(event);
        });
        Map<String, Completer> chained = chains.byProvider();
        Map<String, Completer> ownModels = ownModels(chains, shared, traced);
        ModelTable prices = ModelTable.defaults().withAll(config.prices()).withAll(s.prices);
        List<McpConnection> clients = new ArrayList<>();
        try {
            Map<String, Supplier<ToolBox>> boxes = toolboxes(store, tasks, chained, prices, traced, clients);
            Map<String, CodingSupport.Coding> coding = CodingSupport.build(config, workDir(), Engine.class.getClassLoader());
            Map<String, UnaryOperator<ToolPolicy>> codingPolicies = new LinkedHashMap<>();
            coding.forEach((agent, c) -> codingPolicies.put(agent, c.policy()));
            HumanInTheLoop human = new HumanInTheLoop(s.approvals, config, s.permissions, s.dir, s.clock, codingPolicies);
            ModelTable windows = ModelTable.defaults().withAll(config.contextWindows()).withAll(s.contextWindows);
            Agent.SkillTools brought = SkillFolders.of(skillTools, () -> new McpServers(config, workDir(),
                    s.dir, traced.mcpMeta, chained, prices, s.mcpConsent, s.mcpTokens));
            AgentFactory agents = new AgentFactory(new AgentFactory.Parts(config, s.dir, chained, ownModels, boxes, coding,
                    human, skills, brought, projectContext, prices, windows, events));
            SessionManager sessions = new SessionManager(config.entryAgent().orElseThrow(), agents, sessionStore(shared),
                    s.sessionWait, s.clock, events, human, new LiveSession.Links(withModelEvents(s.interceptors), traced.observer));
            return new Engine(new EngineParts(config, s.dir, events, s.usage, store, tasks, shared, clients, traced,
                    human, agents, sessions, List.copyOf(warnings)));
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

    /** A store or folder given in code wins over the redis: section, which wins over .shelly/sessions. */
    private SessionStore sessionStore(SharedBackends shared) {
        EngineSettings s = settings;
        Path sessionsDir = s.sessionsDir != null ? s.sessionsDir : s.dir != null ? s.dir.sessionsDir() : null;
        return s.sessionStore != null ? s.sessionStore
                : s.sessionsDir == null && shared != null ? shared.sessions()
                : sessionsDir == null ? null : FileSessionStore.in(sessionsDir);
    }

    /** Each configured provider's own completer, by name: built by its kind, or the one given in code. */
    private Map<String, Completer> providers(SharedBackends shared, EngineTelemetry traced) {
        EngineSettings s = settings;
        Map<String, Completer> models = new LinkedHashMap<>();
        for (int i = 0; i < config.providers().size(); i++) {
            models.put(config.providers().get(i).name(), completer(i, null, shared, traced));
        }
        for (String name : s.completers.keySet()) {
            if (!models.containsKey(name)) {
                throw new ConfigException(config.file().orElse(null), 0, "providers", "a completer was given for provider '"
                        + name + "', which is not configured; configured providers: "
                        + String.join(", ", models.keySet()));
            }
        }
        return models;
    }

    /**
     * The completer of the provider at {@code index}, asking for {@code model} (null: its own):
     * built by its kind, or the one given in code for the provider.
     */
    private Completer completer(int index, String model, SharedBackends shared, EngineTelemetry traced) {
        EngineSettings s = settings;
        ProviderConfig p = config.providers().get(index);
        Completer override = s.completers.get(p.name());
        if (override != null) {
            // A completer given in code does not know the engine's tracker: count its replies here.
            return new CountingCompleter(override, s.usage);
        }
        if (kinds == null) {
            kinds = ProviderKinds.load();
        }
        return kinds.build(config, index, model, s.env, s.usage,
                shared == null ? RateLimiter::inProcess : limit -> shared.rateLimiter(p.name(), limit), retries(traced));
    }

    /** The telemetry's retry listener, and the bus's. */
    private RetryListener retries(EngineTelemetry traced) {
        RetryListener onBus = modelEvents.retries();
        return event -> {
            traced.retries.onRetry(event);
            onBus.onRetry(event);
        };
    }

    /**
     * The builder's interceptors, then the link that names the run of a provider's retries and
     * fallbacks; left out when no provider can retry or fall back (every one given in code, none
     * with a fallback), so such an engine's model calls pay nothing for it.
     */
    private List<RunInterceptor> withModelEvents(List<RunInterceptor> given) {
        boolean retriesOrFallbacks = config.providers().stream()
                .anyMatch(p -> !settings.completers.containsKey(p.name()) || !p.fallback().isEmpty());
        if (!retriesOrFallbacks) {
            return List.copyOf(given);
        }
        List<RunInterceptor> all = new ArrayList<>(given);
        all.add(modelEvents);
        return List.copyOf(all);
    }

    /**
     * The completers of the agents that ask their provider for a model of their own, by agent
     * name: one per provider and model, in front of the provider's fallbacks.
     */
    private Map<String, Completer> ownModels(ProviderChains chains, SharedBackends shared, EngineTelemetry traced) {
        Map<String, Completer> byModel = new HashMap<>();
        Map<String, Completer> byAgent = new LinkedHashMap<>();
        for (AgentConfig agent : config.agents()) {
            ProviderConfig p = config.providerOf(agent);
            if (agent.model() == null || agent.model().equals(p.model())) {
                continue;
            }
            int index = config.providers().indexOf(p);
            byAgent.put(agent.name(), byModel.computeIfAbsent(p.name() + "\n" + agent.model(),
                    key -> chains.withModel(p, completer(index, agent.model(), shared, traced))));
        }
        return byAgent;
    }

    /**
     * The toolboxes agents may name: the built-in ones, those given in code and one per MCP
     * server, whose clients are added to {@code clients} as they connect.
     */
    private Map<String, Supplier<ToolBox>> toolboxes(Store store, TaskBoard tasks, Map<String, Completer> models,
            ModelTable prices, EngineTelemetry traced, List<McpConnection> clients) {
        Map<String, Supplier<ToolBox>> boxes = new LinkedHashMap<>();
        ToolBox stateTools = store.tools(Engine.STATE_NAMESPACE);
        ToolBox taskTools = tasks.tools();
        boxes.put("state", () -> stateTools);
        boxes.put("tasks", () -> taskTools);
        settings.toolboxes.forEach((name, box) -> boxes.put(name, () -> box));
        // McpServers names shelly-mcp's types (an optional dependency): touch it only for MCP servers.
        McpSupport.require(config.mcpServers(), "MCP servers are configured", Engine.class.getClassLoader(),
                message -> config.errorAt("mcp_servers", message));
        if (!config.mcpServers().isEmpty()) {
            McpServers mcp = new McpServers(config, workDir(), settings.dir, traced.mcpMeta, models, prices,
                    settings.mcpConsent, settings.mcpTokens);
            for (int i = 0; i < config.mcpServers().size(); i++) {
                McpServerConfig server = config.mcpServers().get(i);
                McpConnection client = mcp.connect(server, i);
                clients.add(client);
                boxes.put(server.name(), client.toolBox());
            }
        }
        checkToolSelections(boxes);
        return boxes;
    }

    private Path workDir() {
        return settings.dir == null ? Path.of("").toAbsolutePath() : settings.dir.projectDir();
    }

    /**
     * The project's skills and those given in code, then the user's skills of other names: a
     * user's skill that a project's or a given one hides is reported once, as a warning.
     */
    private List<Skill> loadSkills(ShellyDir user) {
        List<Skill> all = new ArrayList<>();
        ShellyDir dir = settings.dir;
        if (dir != null && Files.isDirectory(dir.skillsDir())) {
            all.addAll(Skill.loadDir(dir.skillsDir()));
        }
        all.addAll(settings.skills);
        all.sort(Comparator.comparing(Skill::name));
        for (int i = 1; i < all.size(); i++) {
            if (all.get(i).name().equals(all.get(i - 1).name())) {
                throw new ConfigException(null, 0, "skills", "two skills are named '" + all.get(i).name() + "'");
            }
        }
        if (user != null && Files.isDirectory(user.skillsDir())) {
            Map<String, Skill> mine = new HashMap<>();
            all.forEach(skill -> mine.put(skill.name(), skill));
            for (Skill skill : Skill.loadDir(user.skillsDir())) {
                Skill hiding = mine.get(skill.name());
                if (hiding == null) {
                    all.add(skill);
                } else {
                    warn("skill '" + skill.name() + "' of " + user.skillsDir() + " is hidden by the project's skill of "
                            + "that name" + (hiding.dir() == null ? " (given in code)" : " in " + hiding.dir()));
                }
            }
            all.sort(Comparator.comparing(Skill::name));
        }
        return List.copyOf(all);
    }

    /** A problem that does not stop the engine: logged once, and kept for {@link Engine#warnings()}. */
    private void warn(String warning) {
        LOG.warn(warning);
        warnings.add(warning);
    }

    private void checkToolSelections(Map<String, Supplier<ToolBox>> boxes) {
        for (int i = 0; i < config.agents().size(); i++) {
            AgentConfig agent = config.agents().get(i);
            for (int j = 0; j < agent.toolboxes().size(); j++) {
                AgentConfig.Toolbox ref = agent.toolboxes().get(j);
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
