package dev.shelly.engine.config;

import dev.shelly.modeladapter.ModelTable;
import dev.shelly.storage.spi.RedisConfig;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Everything the engine wires: providers, MCP servers, agents and the entry agent.
 *
 * <p>Read from {@code .shelly/config.yaml} with {@link ConfigLoader}, or built in code with
 * {@link #builder()}; both are checked the same way by {@link #check(Set, Set)}: every name unique,
 * every reference to a provider, toolbox, skill or agent resolved, so that a mistake shows at
 * load time and not at the first call.
 */
public final class EngineConfig {
    /** The toolboxes the engine provides itself, besides the MCP servers. */
    public static final Set<String> BUILT_IN_TOOLBOXES = Set.of("state", "tasks");

    private final Sections sections;
    private final List<ProviderConfig> providers;
    private final List<McpServerConfig> mcpServers;
    private final List<AgentConfig> agents;
    private final String entryAgent;
    private final Locations locations;

    EngineConfig(Sections sections, Locations locations) {
        this.sections = sections;
        this.providers = sections.providers();
        this.mcpServers = sections.mcpServers();
        this.agents = sections.agents();
        this.entryAgent = sections.entryAgent();
        this.locations = locations;
    }

    /**
     * Starts a configuration in code.
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The providers, in order.
     *
     * @return the providers
     */
    public List<ProviderConfig> providers() {
        return providers;
    }

    /**
     * The MCP servers, in order.
     *
     * @return the servers
     */
    public List<McpServerConfig> mcpServers() {
        return mcpServers;
    }

    /**
     * The agents, in order.
     *
     * @return the agents
     */
    public List<AgentConfig> agents() {
        return agents;
    }

    /**
     * The agent that answers a session: the configured one, or the only agent.
     *
     * @return the entry agent's name, or empty when there are several agents and none is named
     */
    public Optional<String> entryAgent() {
        if (entryAgent != null) {
            return Optional.of(entryAgent);
        }
        return agents.size() == 1 ? Optional.of(agents.getFirst().name()) : Optional.empty();
    }

    /**
     * The {@code redis:} section: where state, tasks, sessions and rate limits are shared.
     *
     * @return the section, or empty when everything stays in this process
     */
    public Optional<RedisConfig> redis() {
        return Optional.ofNullable(sections.redis());
    }

    /**
     * How decisions about tool calls are waited for: the {@code approvals:} section.
     *
     * @return the section, or empty when the file has none
     */
    public Optional<ApprovalsConfig> approvals() {
        return Optional.ofNullable(sections.approvals());
    }

    /**
     * The {@code telemetry:} section: OpenTelemetry traces and metrics over OTLP.
     *
     * @return the section, or empty when the engine records no telemetry of its own
     */
    public Optional<TelemetryConfig> telemetry() {
        return Optional.ofNullable(sections.telemetry());
    }

    /**
     * The {@code prices:} section: model prices laid over {@link ModelTable#defaults()}.
     *
     * @return the configured prices, empty when none are
     */
    public ModelTable prices() {
        return sections.prices();
    }

    /**
     * The {@code context_windows:} section: model ids and their windows in tokens, laid over
     * {@link ModelTable#defaults()}.
     *
     * @return the configured windows, empty when none are
     */
    public ModelTable contextWindows() {
        return sections.contextWindows();
    }

    /**
     * The file this configuration was read from.
     *
     * @return the file, or empty for a configuration built in code
     */
    public Optional<String> file() {
        return Optional.ofNullable(locations.file());
    }

    /**
     * The provider an agent uses: its configured one, or the only provider.
     *
     * @param agent the agent
     * @return the provider
     * @throws ConfigException when it cannot be resolved
     */
    public ProviderConfig providerOf(AgentConfig agent) {
        int index = agents.indexOf(agent);
        String path = "agents[" + index + "].provider";
        if (agent.provider() == null) {
            if (providers.size() == 1) {
                return providers.getFirst();
            }
            throw error(path, "missing; name one of the providers: " + names(providerNames()));
        }
        for (ProviderConfig p : providers) {
            if (p.name().equals(agent.provider())) {
                return p;
            }
        }
        throw error(path, "unknown provider '" + agent.provider() + "'; expected one of: " + names(providerNames()));
    }

    /**
     * Checks names and references.
     *
     * @param availableSkills the skills that can be named, or null to skip checking skill names
     * @param extraToolboxes toolboxes registered in code that agents may name, besides the MCP
     *     servers and the built-in ones
     * @return this configuration
     * @throws ConfigException naming the first problem found
     */
    public EngineConfig check(Set<String> availableSkills, Set<String> extraToolboxes) {
        unique("providers", providers.stream().map(ProviderConfig::name).toList());
        unique("mcp_servers", mcpServers.stream().map(McpServerConfig::name).toList());
        unique("agents", agents.stream().map(AgentConfig::name).toList());
        checkFallbacks();
        for (int i = 0; i < mcpServers.size(); i++) {
            if (BUILT_IN_TOOLBOXES.contains(mcpServers.get(i).name())) {
                throw error("mcp_servers[" + i + "].name", "'" + mcpServers.get(i).name()
                        + "' is the name of a built-in toolbox; choose another name");
            }
        }
        Set<String> providerNames = providers.stream().map(ProviderConfig::name).collect(java.util.stream.Collectors.toSet());
        for (int i = 0; i < mcpServers.size(); i++) {
            String sampling = mcpServers.get(i).sampling();
            if (sampling != null && !providerNames.contains(sampling)) {
                throw error("mcp_servers[" + i + "].sampling", "sampling names provider '" + sampling
                        + "', which is not configured; configured providers: " + String.join(", ", new TreeSet<>(providerNames)));
            }
        }
        if (agents.isEmpty()) {
            throw error("agents", "no agent is configured; add at least one under 'agents'");
        }
        Set<String> toolboxes = new TreeSet<>(BUILT_IN_TOOLBOXES);
        for (int i = 0; i < mcpServers.size(); i++) {
            if (extraToolboxes.contains(mcpServers.get(i).name())) {
                throw error("mcp_servers[" + i + "].name", "'" + mcpServers.get(i).name()
                        + "' is also the name of a toolbox registered in code; choose another name");
            }
            toolboxes.add(mcpServers.get(i).name());
        }
        toolboxes.addAll(extraToolboxes);
        for (int i = 0; i < agents.size(); i++) {
            AgentConfig agent = agents.get(i);
            providerOf(agent);
            String summarizer = agent.context() == null ? null : agent.context().summarizer();
            if (summarizer != null && !providerNames().contains(summarizer)) {
                throw error("agents[" + i + "].context.summarizer", "unknown provider '" + summarizer + "'; expected one of: "
                        + names(providerNames()));
            }
            for (int j = 0; j < agent.toolboxes().size(); j++) {
                String name = agent.toolboxes().get(j).name();
                if (!toolboxes.contains(name)) {
                    throw error("agents[" + i + "].toolboxes[" + j + "]", "unknown toolbox '" + name
                            + "'; expected an MCP server name or a built-in toolbox: " + names(toolboxes));
                }
            }
            if (availableSkills != null && agent.skills() != null) {
                for (int j = 0; j < agent.skills().size(); j++) {
                    String skill = agent.skills().get(j);
                    if (!availableSkills.contains(skill)) {
                        throw error("agents[" + i + "].skills[" + j + "]", "unknown skill '" + skill + "'; "
                                + (availableSkills.isEmpty() ? "no skills are loaded (put them in .shelly/skills/<name>/SKILL.md)"
                                        : "expected one of: " + names(availableSkills)));
                    }
                }
            }
        }
        Set<String> agentNames = new LinkedHashSet<>();
        agents.forEach(a -> agentNames.add(a.name()));
        if (entryAgent != null && !agentNames.contains(entryAgent)) {
            throw error("entry_agent", "unknown agent '" + entryAgent + "'; expected one of: " + names(agentNames));
        }
        if (entryAgent().isEmpty()) {
            throw error("entry_agent", "missing; with several agents, name the one that answers: " + names(agentNames));
        }
        return this;
    }

    /**
     * The providers a provider's requests go to, in order: the provider itself, then each of its
     * {@code fallback} providers followed by their own fallbacks, each named once.
     *
     * @param provider a configured provider's name
     * @return the names, the provider first; only the provider when it has no fallback
     * @throws IllegalArgumentException when no provider has that name
     */
    public List<String> fallbackChain(String provider) {
        List<String> chain = new ArrayList<>();
        addChain(providerNamed(provider), chain);
        return List.copyOf(chain);
    }

    private void addChain(ProviderConfig p, List<String> chain) {
        if (chain.contains(p.name())) {
            return;
        }
        chain.add(p.name());
        for (String next : p.fallback()) {
            addChain(providerNamed(next), chain);
        }
    }

    private ProviderConfig providerNamed(String name) {
        for (ProviderConfig p : providers) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        throw new IllegalArgumentException("no provider is named '" + name + "'");
    }

    /** Each fallback names another configured provider, once, and no chain leads back to where it started. */
    private void checkFallbacks() {
        for (int i = 0; i < providers.size(); i++) {
            ProviderConfig p = providers.get(i);
            Set<String> seen = new HashSet<>();
            for (int j = 0; j < p.fallback().size(); j++) {
                String name = p.fallback().get(j);
                String path = "providers[" + i + "].fallback[" + j + "]";
                if (name == null || name.isBlank()) {
                    throw error(path, "a fallback must name a provider; expected one of: " + names(providerNames()));
                }
                if (name.equals(p.name())) {
                    throw error(path, "provider '" + p.name() + "' cannot fall back to itself");
                }
                if (!providerNames().contains(name)) {
                    throw error(path, "unknown provider '" + name + "'; expected one of: " + names(providerNames()));
                }
                if (!seen.add(name)) {
                    throw error(path, "provider '" + name + "' is named twice in the fallback of '" + p.name() + "'");
                }
            }
        }
        for (int i = 0; i < providers.size(); i++) {
            List<String> path = new ArrayList<>();
            path.add(providers.get(i).name());
            findCycle(i, path);
        }
    }

    private void findCycle(int index, List<String> path) {
        ProviderConfig p = providers.get(index);
        for (int j = 0; j < p.fallback().size(); j++) {
            String next = p.fallback().get(j);
            if (next.equals(path.getFirst())) {
                List<String> cycle = new ArrayList<>(path);
                cycle.add(next);
                throw error("providers[" + index + "].fallback[" + j + "]", "fallback cycle: "
                        + String.join(" -> ", cycle) + "; a provider's fallbacks must not lead back to it");
            }
            if (!path.contains(next)) {
                path.add(next);
                findCycle(providers.indexOf(providerNamed(next)), path);
                path.removeLast();
            }
        }
    }

    /**
     * An error located at a field of this configuration: with the file and line when it was
     * read from a file.
     *
     * @param path the field's path, such as {@code agents[2].provider}
     * @param problem what is wrong and what was expected
     * @return the exception, to throw
     */
    public ConfigException errorAt(String path, String problem) {
        return locations.error(path, problem);
    }

    private ConfigException error(String path, String problem) {
        return errorAt(path, problem);
    }

    private Set<String> providerNames() {
        Set<String> names = new LinkedHashSet<>();
        providers.forEach(p -> names.add(p.name()));
        return names;
    }

    private void unique(String section, List<String> names) {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < names.size(); i++) {
            if (!seen.add(names.get(i))) {
                throw error(section + "[" + i + "].name", "the name '" + names.get(i) + "' is used twice in " + section);
            }
        }
    }

    private static String names(Set<String> names) {
        return names.isEmpty() ? "(none configured)" : String.join(", ", new TreeSet<>(names));
    }

    /** Builds a configuration in code. */
    public static final class Builder {
        private final List<ProviderConfig> providers = new ArrayList<>();
        private final List<McpServerConfig> mcpServers = new ArrayList<>();
        private final List<AgentConfig> agents = new ArrayList<>();
        private String entryAgent;
        private RedisConfig redis;
        private ApprovalsConfig approvals;
        private ModelTable prices = ModelTable.empty();
        private ModelTable contextWindows = ModelTable.empty();
        private TelemetryConfig telemetry;

        private Builder() {}

        /**
         * Adds a provider.
         *
         * @param value the provider
         * @return this builder
         */
        public Builder provider(ProviderConfig value) {
            providers.add(value);
            return this;
        }

        /**
         * Adds an MCP server.
         *
         * @param value the server
         * @return this builder
         */
        public Builder mcpServer(McpServerConfig value) {
            mcpServers.add(value);
            return this;
        }

        /**
         * Adds an agent.
         *
         * @param value the agent
         * @return this builder
         */
        public Builder agent(AgentConfig value) {
            agents.add(value);
            return this;
        }

        /**
         * Names the agent that answers a session.
         *
         * @param name an agent's name
         * @return this builder
         */
        public Builder entryAgent(String name) {
            this.entryAgent = name;
            return this;
        }

        /**
         * Shares state, tasks, sessions and rate limits in Redis (needs {@code shelly-redis} on the class path).
         *
         * @param value the Redis settings
         * @return this builder
         */
        public Builder redis(RedisConfig value) {
            this.redis = value;
            return this;
        }

        /**
         * Sets how decisions about tool calls are waited for.
         *
         * @param value the {@code approvals:} settings
         * @return this builder
         */
        public Builder approvals(ApprovalsConfig value) {
            this.approvals = value;
            return this;
        }

        /**
         * Sends OpenTelemetry traces and metrics over OTLP (needs {@code shelly-otel} on the class path).
         *
         * @param value the telemetry settings
         * @return this builder
         */
        public Builder telemetry(TelemetryConfig value) {
            this.telemetry = value;
            return this;
        }

        /**
         * Prices models beyond (or instead of) {@link ModelTable#defaults()}.
         *
         * @param value the prices; replaces any set before
         * @return this builder
         */
        public Builder prices(ModelTable value) {
            if (value == null) {
                throw new IllegalArgumentException("EngineConfig.Builder.prices must not be null");
            }
            this.prices = value;
            return this;
        }

        /**
         * Sets the {@code context_windows:} section.
         *
         * @param value model ids and their windows; replaces any set before
         * @return this builder
         */
        public Builder contextWindows(ModelTable value) {
            if (value == null) {
                throw new IllegalArgumentException("EngineConfig.Builder.contextWindows must not be null");
            }
            this.contextWindows = value;
            return this;
        }

        /**
         * Builds the configuration (not yet checked: see {@link EngineConfig#check(Set, Set)}).
         *
         * @return the configuration
         */
        public EngineConfig build() {
            return new EngineConfig(new Sections(providers, mcpServers, agents, entryAgent, redis, prices, contextWindows,
                    approvals, telemetry),
                    Locations.NONE);
        }
    }
}
