package dev.shelly.engine;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.Approvals;
import dev.shelly.agent.PermissionStore;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.agent.ToolPolicy;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.mcp.McpOAuth;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.FallbackCompleter.FallbackListener;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.modeladapter.UsageTracker;
import dev.shelly.otel.ShellyTelemetry;
import dev.shelly.skills.Skill;
import dev.shelly.state.Store;
import dev.shelly.state.tasks.TaskBoard;
import dev.shelly.storage.SessionBusyException;
import dev.shelly.storage.spi.SessionStore;
import dev.shelly.tools.ToolBox;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The settings of an {@link Engine.Builder}, kept out of {@code Engine.java} so that the engine's
 * file holds the engine. Every setter is public on {@link Engine.Builder}, the only subclass;
 * {@link EngineWiring} reads the fields when the engine is built.
 */
abstract sealed class EngineSettings permits Engine.Builder {
    EngineConfig config;
    ShellyDir dir;
    ShellyDir userDir;
    boolean userDirSet;
    Function<String, String> env = System::getenv;
    final Map<String, Completer> completers = new LinkedHashMap<>();
    final Map<String, ToolBox> toolboxes = new LinkedHashMap<>();
    final List<Skill> skills = new ArrayList<>();
    final List<RunInterceptor> interceptors = new ArrayList<>();
    String projectContext;
    Path sessionsDir;
    SessionStore sessionStore;
    Duration sessionWait = Engine.DEFAULT_SESSION_WAIT;
    EventBus<AgentEvent> events;
    UsageTracker usage = new UsageTracker();
    ModelTable prices = ModelTable.empty();
    ModelTable contextWindows = ModelTable.empty();
    Store store;
    TaskBoard tasks;
    Clock clock = Clock.systemUTC();
    final HumanInTheLoop.Settings approvals = new HumanInTheLoop.Settings();
    PermissionStore permissions;
    EngineTelemetry telemetry;
    FallbackListener fallbackListener = FallbackListener.NONE;
    McpOAuth.Consent mcpConsent;
    McpOAuth.TokenStore mcpTokens;

    EngineSettings() {}

    private Engine.Builder self() {
        return (Engine.Builder) this;
    }

    /**
     * The tool policy of one agent: which tools it calls freely, which never, and which only
     * after a person approves the call (see {@link Session} on decisions). Wins over the
     * agent's policy in the configuration.
     *
     * @param agent a configured agent
     * @param policy its policy
     * @return this builder
     */
    public Engine.Builder toolPolicy(String agent, ToolPolicy policy) {
        approvals.policy(agent, policy);
        return self();
    }

    /**
     * The tool policy of agents that have none of their own; {@link ToolPolicy#ALLOW_ALL}
     * unless set.
     *
     * @param policy the policy
     * @return this builder
     */
    public Engine.Builder defaultToolPolicy(ToolPolicy policy) {
        approvals.defaultPolicy(policy);
        return self();
    }

    /**
     * Offers the {@code ask_user} tool to agents, through which the model asks the person a
     * question and pauses the session until {@link Session#answer} replies.
     *
     * @param agents configured agents
     * @return this builder
     */
    public Engine.Builder askUser(String... agents) {
        approvals.askUser(agents);
        return self();
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
    public Engine.Builder decisionTimeout(Duration value, Approvals.OnTimeout action) {
        approvals.timeout(value, action);
        return self();
    }

    /**
     * Where "always for this project" decisions are kept; by default
     * {@code .shelly/permissions.json} of the engine's folder (none without a folder).
     *
     * @param value the store
     * @return this builder
     */
    public Engine.Builder permissionStore(PermissionStore value) {
        this.permissions = requireNonNull(value, "Engine.Builder permissionStore");
        return self();
    }

    /**
     * Sets the configuration; without it, the settings of {@link #dir(ShellyDir)} are read: its
     * {@code config.yaml} and {@code agents/}, over the {@linkplain #userDir(ShellyDir) user's},
     * under the environment's overrides ({@link dev.shelly.engine.config.ConfigLoader#loadSettings}).
     *
     * @param value the configuration
     * @return this builder
     */
    public Engine.Builder config(EngineConfig value) {
        this.config = value;
        return self();
    }

    /**
     * Sets the {@code .shelly/} folder: configuration (unless given), agents, skills, context, sessions.
     *
     * @param value the folder
     * @return this builder
     */
    public Engine.Builder dir(ShellyDir value) {
        this.dir = value;
        return self();
    }

    /**
     * Sets the user's settings folder, whose {@code config.yaml}, {@code agents/} and
     * {@code skills/} lie under the project's (the project wins on every name both define);
     * without it, {@link ShellyDir#user} of the engine's {@linkplain #environment environment}.
     * Read only with a {@linkplain #dir(ShellyDir) .shelly folder}; its configuration only when
     * none is {@linkplain #config(EngineConfig) given}.
     *
     * @param value the folder, or null to read no user's settings
     * @return this builder
     */
    public Engine.Builder userDir(ShellyDir value) {
        this.userDir = value;
        this.userDirSet = true;
        return self();
    }

    /**
     * Sets how environment variables are looked up (config interpolation, provider keys).
     *
     * @param value the lookup
     * @return this builder
     */
    public Engine.Builder environment(Function<String, String> value) {
        this.env = requireNonNull(value, "Engine.Builder.environment");
        return self();
    }

    /**
     * Answers for a configured provider with this completer instead of building it: a
     * scripted model in tests and examples, or a completer you built yourself.
     *
     * @param providerName a configured provider's name
     * @param completer the completer
     * @return this builder
     */
    public Engine.Builder completer(String providerName, Completer completer) {
        if (providerName == null || providerName.isBlank()) {
            throw new IllegalArgumentException("Engine.Builder.completer providerName must not be null or blank");
        }
        completers.put(providerName,
                requireNonNull(completer, "Engine.Builder.completer for provider '" + providerName + "'"));
        return self();
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
    public Engine.Builder toolbox(String name, ToolBox toolbox) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("Engine.Builder.toolbox name must not be null or blank");
        }
        if (EngineConfig.BUILT_IN_TOOLBOXES.contains(name)) {
            throw new IllegalArgumentException("Engine.Builder.toolbox name '" + name
                    + "' is the name of a built-in toolbox; choose another name");
        }
        toolboxes.put(name, requireNonNull(toolbox, "Engine.Builder.toolbox '" + name + "'"));
        return self();
    }

    /**
     * Adds skills besides those in {@code .shelly/skills}.
     *
     * @param more the skills
     * @return this builder
     */
    public Engine.Builder skills(List<Skill> more) {
        for (Skill skill : requireNonNull(more, "Engine.Builder.skills")) {
            if (skill == null) {
                throw new IllegalArgumentException("Engine.Builder.skills must not hold null");
            }
            skills.add(skill);
        }
        return self();
    }

    /**
     * Puts these links into the interception chain of every session turn: they start each turn's
     * run context, so every run of the turn, delegated agents' included, passes through them
     * once, before the agents' own links (first = outermost). An agent handed out by
     * {@link Engine#agent(String)} runs without them unless its run's context is given them.
     *
     * @param more the links
     * @return this builder
     */
    public Engine.Builder interceptors(RunInterceptor... more) {
        for (RunInterceptor link : requireNonNull(more, "Engine.Builder.interceptors")) {
            if (link == null) {
                throw new IllegalArgumentException("Engine.Builder.interceptors must not hold null");
            }
            interceptors.add(link);
        }
        return self();
    }

    /**
     * Sets the project context; without it, the curated {@code .shelly/*.md} files are used.
     *
     * @param value the context
     * @return this builder
     */
    public Engine.Builder projectContext(String value) {
        this.projectContext = value;
        return self();
    }

    /**
     * Saves sessions in this folder instead of {@code .shelly/sessions} (or Redis, when the
     * configuration has a {@code redis:} section).
     *
     * @param value the folder
     * @return this builder
     */
    public Engine.Builder sessionsDir(Path value) {
        this.sessionsDir = value;
        return self();
    }

    /**
     * Keeps sessions in this store (a backend of your own) instead of files, or Redis when the
     * configuration has a {@code redis:} section.
     *
     * @param value the store
     * @return this builder
     */
    public Engine.Builder sessionStore(SessionStore value) {
        this.sessionStore = requireNonNull(value, "Engine.Builder.sessionStore");
        return self();
    }

    /**
     * Sets how long opening a session waits while another engine or process holds it, before
     * it fails with {@link SessionBusyException}; {@link Engine#DEFAULT_SESSION_WAIT} unless set.
     *
     * @param value the wait; zero to fail at once
     * @return this builder
     */
    public Engine.Builder sessionWait(Duration value) {
        if (value == null || value.isNegative()) {
            throw new IllegalArgumentException("Engine.Builder.sessionWait must be zero or positive, was " + value);
        }
        this.sessionWait = value;
        return self();
    }

    /**
     * Publishes agent events on this bus instead of a new one.
     *
     * @param value the bus
     * @return this builder
     */
    public Engine.Builder events(EventBus<AgentEvent> value) {
        this.events = value;
        return self();
    }

    /**
     * Prices models beyond (or instead of) the shipped list and the configuration's
     * {@code prices:}; these win over both.
     *
     * @param value the prices
     * @return this builder
     */
    public Engine.Builder prices(ModelTable value) {
        this.prices = requireNonNull(value, "Engine.Builder.prices");
        return self();
    }

    /**
     * Context windows laid over the defaults and the configuration's
     * {@code context_windows:}; these win over both.
     *
     * @param value the windows
     * @return this builder
     */
    public Engine.Builder contextWindows(ModelTable value) {
        this.contextWindows = requireNonNull(value, "Engine.Builder.contextWindows");
        return self();
    }

    /**
     * Counts every provider's tokens in this tracker.
     *
     * @param value the tracker
     * @return this builder
     */
    public Engine.Builder usage(UsageTracker value) {
        this.usage = requireNonNull(value, "Engine.Builder.usage");
        return self();
    }

    /**
     * Uses this store behind the {@code state} toolbox, instead of one in memory (or in Redis,
     * when the configuration has a {@code redis:} section).
     *
     * @param value the store
     * @return this builder
     */
    public Engine.Builder store(Store value) {
        this.store = requireNonNull(value, "Engine.Builder.store");
        return self();
    }

    /**
     * Uses this board behind the {@code tasks} toolbox, instead of one in memory (or in Redis,
     * when the configuration has a {@code redis:} section).
     *
     * @param value the board
     * @return this builder
     */
    public Engine.Builder tasks(TaskBoard value) {
        this.tasks = requireNonNull(value, "Engine.Builder.tasks");
        return self();
    }

    /**
     * Sets the clock for session ids and timestamps.
     *
     * @param value the clock
     * @return this builder
     */
    public Engine.Builder clock(Clock value) {
        this.clock = requireNonNull(value, "Engine.Builder.clock");
        return self();
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
    public Engine.Builder telemetry(ShellyTelemetry value) {
        this.telemetry = EngineTelemetry.given(requireNonNull(value, "Engine.Builder.telemetry"));
        return self();
    }

    /**
     * Tells this listener each time a provider's request moves to one of its {@code fallback:}
     * providers (besides the WARN log line and, with telemetry, the span event and counter).
     *
     * @param value the listener
     * @return this builder
     */
    public Engine.Builder fallbackListener(FallbackListener value) {
        this.fallbackListener = requireNonNull(value, "Engine.Builder.fallbackListener");
        return self();
    }

    /**
     * How the person consents when an MCP server of the configuration ({@code oauth:}, the
     * authorization-code grant) needs their authorization: the callback gets the authorization
     * page's URL to show them (open a browser, print the link, show it in a web page). With
     * {@code consent: loopback} (the default) the engine takes the browser's redirect itself on
     * the loopback {@code redirect_uri} while the callback runs and after it, so the callback
     * returns null once the page is shown (or the redirect, when it has it); with
     * {@code consent: application} the callback returns the redirect, which the application's
     * own endpoint received. The MCP servers are connected when the engine is built, so the
     * callback runs within {@link Engine.Builder#build()}. Without it, a server that needs the
     * person's consent (no usable token kept) fails the build, naming this method.
     *
     * @param value the consent step
     * @return this builder
     */
    public Engine.Builder mcpConsent(McpOAuth.Consent value) {
        this.mcpConsent = requireNonNull(value, "Engine.Builder.mcpConsent");
        return self();
    }

    /**
     * Keeps the MCP servers' OAuth tokens (and the clients registered for them) in this store,
     * instead of {@code .shelly/mcp-tokens.json} (mode 0600; in memory for an engine without a
     * folder).
     *
     * @param value the store
     * @return this builder
     */
    public Engine.Builder mcpTokenStore(McpOAuth.TokenStore value) {
        this.mcpTokens = requireNonNull(value, "Engine.Builder.mcpTokenStore");
        return self();
    }

    private static <T> T requireNonNull(T value, String what) {
        if (value == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        return value;
    }
}
