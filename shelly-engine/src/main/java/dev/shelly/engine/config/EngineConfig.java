package dev.shelly.engine.config;

import dev.shelly.agent.Approvals;
import dev.shelly.agent.ToolPolicy;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import dev.shelly.storage.spi.RedisConfig;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
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
    public Optional<ApprovalSettings> approvals() {
        return Optional.ofNullable(sections.approvals());
    }

    /**
     * The {@code telemetry:} section: OpenTelemetry traces and metrics over OTLP.
     *
     * @return the section, or empty when the engine records no telemetry of its own
     */
    public Optional<Telemetry> telemetry() {
        return Optional.ofNullable(sections.telemetry());
    }

    /**
     * The {@code console:} section: a browser console on the engine, served by
     * {@code dev.shelly:shelly-console}.
     *
     * @return the section, or empty when the engine starts no console
     */
    public Optional<Console> console() {
        return Optional.ofNullable(sections.console());
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
     * The model an agent asks for: its own {@code model}, else its provider's.
     *
     * @param agent the agent
     * @return the model's name
     * @throws ConfigException when its provider cannot be resolved
     */
    public String modelOf(AgentConfig agent) {
        return agent.model() != null ? agent.model() : providerOf(agent).model();
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
        new ConfigChecks(this, entryAgent).check(availableSkills, extraToolboxes);
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

    ProviderConfig providerNamed(String name) {
        for (ProviderConfig p : providers) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        throw new IllegalArgumentException("no provider is named '" + name + "'");
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

    Set<String> providerNames() {
        Set<String> names = new LinkedHashSet<>();
        providers.forEach(p -> names.add(p.name()));
        return names;
    }

    static String names(Set<String> names) {
        return names.isEmpty() ? "(none configured)" : String.join(", ", new TreeSet<>(names));
    }

    /**
     * How decisions about tool calls are waited for: the top-level {@code approvals:} section.
     *
     * <pre>{@code
     * approvals:
     *   timeout: 10m          # how long a call waits for a decision; none: for ever
     *   on_timeout: deny      # deny the call and go on, or cancel the paused turn
     *   default_policy:       # for agents without an approval: section of their own
     *     ask: [delegate]
     * }</pre>
     *
     * @param timeout how long a call may wait for a decision, or null for ever
     * @param onTimeout what happens to a call that waited too long ({@code deny} or {@code cancel}
     *     in the file); null for {@link Approvals.OnTimeout#DENY}
     * @param defaultPolicy the policy of agents without their own (written like an agent's
     *     {@code approval:}, without {@code ask_user}), or null to allow every tool
     */
    public record ApprovalSettings(Duration timeout, Approvals.OnTimeout onTimeout, ToolPolicy defaultPolicy) {

        /** Validates the timeout and fills in the action. */
        public ApprovalSettings {
            if (timeout != null && (timeout.isZero() || timeout.isNegative())) {
                throw new InvalidSettingException("timeout", "must be positive, was " + timeout);
            }
            onTimeout = onTimeout == null ? Approvals.OnTimeout.DENY : onTimeout;
        }
    }

    /**
     * The {@code telemetry:} section of {@code config.yaml}: OpenTelemetry traces and metrics of every
     * session turn (GenAI semantic conventions), sent over OTLP. The OpenTelemetry SDK's own
     * autoconfiguration sets the SDK up from these settings; the {@code OTEL_*} environment variables
     * and {@code otel.*} system properties are read as usual and win over them. It takes effect through
     * {@code dev.shelly:shelly-otel}, which must be on the class path.
     *
     * <pre>{@code
     * telemetry:
     *   endpoint: http://collector.internal:4318   # OTLP endpoint; default: the SDK's (localhost)
     *   protocol: http/protobuf                    # or grpc; default: the SDK's (grpc)
     *   service_name: orders-assistant             # default: shelly
     *   headers:                                   # sent with every export; never printed
     *     authorization: Bearer ${OTLP_TOKEN}
     *   capture_content: false                     # prompts, replies, tool arguments and results; default false
     *   properties:                                # any other autoconfiguration property
     *     otel.traces.sampler: parentbased_traceidratio
     *     otel.traces.sampler.arg: "0.25"
     * }</pre>
     *
     * @param endpoint the OTLP endpoint, an http or https URL; null for the SDK's default
     * @param protocol {@code grpc} or {@code http/protobuf}; null for the SDK's default
     * @param serviceName the {@code service.name} of the resource; null for {@value #DEFAULT_SERVICE_NAME}
     * @param headers headers sent with every export, such as an API key; never printed
     * @param captureContent whether spans carry prompts, replies, tool arguments and results; null for false
     * @param properties further autoconfiguration properties, each named {@code otel.*}
     */
    public record Telemetry(String endpoint, String protocol, String serviceName, Map<String, String> headers,
            Boolean captureContent, Map<String, String> properties) {

        /** The service name when none is given. */
        public static final String DEFAULT_SERVICE_NAME = "shelly";

        /** Fills in the defaults and validates the fields; an error never repeats a header's value. */
        public Telemetry {
            endpoint = Fields.httpUrl(endpoint, "endpoint");
            if (protocol != null && !protocol.equals("grpc") && !protocol.equals("http/protobuf")) {
                throw new InvalidSettingException("protocol", "must be 'grpc' or 'http/protobuf', was '" + protocol + "'");
            }
            serviceName = serviceName == null ? DEFAULT_SERVICE_NAME : Fields.notBlank(serviceName, "service_name").strip();
            headers = headers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
            for (Map.Entry<String, String> h : headers.entrySet()) {
                if (h.getKey().isBlank() || h.getKey().contains("=") || h.getKey().contains(",")) {
                    throw new InvalidSettingException("headers", "header name '" + h.getKey()
                            + "' must not be blank or hold '=' or ','");
                }
                if (h.getValue() == null || h.getValue().isBlank()) {
                    throw new InvalidSettingException("headers." + h.getKey(), "must not be empty");
                }
            }
            captureContent = captureContent != null && captureContent;
            properties = properties == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(properties));
            for (Map.Entry<String, String> p : properties.entrySet()) {
                if (!p.getKey().startsWith("otel.")) {
                    throw new InvalidSettingException("properties", "'" + p.getKey()
                            + "' is not an OpenTelemetry autoconfiguration property (they are named otel.*)");
                }
                if (p.getValue() == null) {
                    throw new InvalidSettingException("properties." + p.getKey(), "must have a value");
                }
            }
        }

        /**
         * Telemetry with the SDK's defaults, to an OTLP endpoint.
         *
         * @param endpoint the OTLP endpoint, or null for the SDK's default
         * @return the configuration
         */
        public static Telemetry of(String endpoint) {
            return new Telemetry(endpoint, null, null, null, null, null);
        }

        /**
         * The autoconfiguration properties these settings stand for: {@code otel.exporter.otlp.*},
         * {@code otel.service.name} and the given {@code properties}, which win.
         *
         * @return the properties, by their {@code otel.*} names
         */
        public Map<String, String> autoconfigureProperties() {
            Map<String, String> all = new LinkedHashMap<>();
            all.put("otel.service.name", serviceName);
            if (endpoint != null) {
                all.put("otel.exporter.otlp.endpoint", endpoint);
            }
            if (protocol != null) {
                all.put("otel.exporter.otlp.protocol", protocol);
            }
            if (!headers.isEmpty()) {
                StringBuilder sb = new StringBuilder();
                for (Map.Entry<String, String> h : headers.entrySet()) {
                    if (!sb.isEmpty()) {
                        sb.append(',');
                    }
                    sb.append(h.getKey()).append('=').append(URLEncoder.encode(h.getValue(),
                            StandardCharsets.UTF_8).replace("+", "%20"));
                }
                all.put("otel.exporter.otlp.headers", sb.toString());
            }
            all.putAll(properties);
            return Collections.unmodifiableMap(all);
        }

        @Override
        public String toString() {
            return "Telemetry[endpoint=" + endpoint + ", protocol=" + protocol + ", serviceName=" + serviceName
                    + ", headers=" + headers.keySet() + ", captureContent=" + captureContent + ", properties="
                    + properties.keySet() + "]";
        }
    }

    /**
     * The {@code console:} section of {@code config.yaml}: the engine starts a browser console
     * (sessions, run trees, cost, the decisions that wait) when it is built, and stops it when it
     * closes. It takes effect through {@code dev.shelly:shelly-console}, which must be on the class
     * path.
     *
     * <pre>{@code
     * console:
     *   port: 7070                          # default 7070; 0 takes a free port
     *   bind: 127.0.0.1                     # default: the loopback address only
     *   token: ${SHELLY_CONSOLE_TOKEN}      # default: a random token, printed once; required unless bind is loopback
     * }</pre>
     *
     * @param port the TCP port, 0 for any free one; null for {@value #DEFAULT_PORT}
     * @param bind the address to listen on, a name is looked up; null for {@value #DEFAULT_BIND}
     * @param token the token every request must carry, at least 16 characters (surrounding white
     *     space is dropped); null for a random one, which only a loopback {@code bind} may have
     */
    public record Console(Integer port, String bind, String token) {
        /** The port when none is given. */
        public static final int DEFAULT_PORT = 7070;
        /** The address when none is given: loopback only. */
        public static final String DEFAULT_BIND = "127.0.0.1";

        /** Fills in the defaults and checks the fields (Console.Options's too); errors never repeat the token. */
        public Console {
            if (port != null && (port < 0 || port > 65_535)) {
                throw new InvalidSettingException("port", "must be between 0 and 65535, was " + port);
            }
            port = port == null ? DEFAULT_PORT : port;
            bind = bind == null ? DEFAULT_BIND : Fields.notBlank(bind, "bind").strip();
            boolean loopback = Fields.address(bind, "bind").isLoopbackAddress();
            if (token != null && (token.isBlank() || token.strip().length() < 16)) {
                throw new InvalidSettingException("token", "must have at least 16 characters");
            }
            if (token == null && !loopback) {
                throw new InvalidSettingException("token", "is required when bind is not a loopback address (" + bind
                        + "): a token made up at start is printed to standard output, which ends up in logs");
            }
            token = token == null ? null : token.strip();
        }

        @Override
        public String toString() {
            return "Console[port=" + port + ", bind=" + bind + ", token=" + (token == null ? "generated" : "set") + "]";
        }
    }

    /** Builds a configuration in code. */
    public static final class Builder {
        private final List<ProviderConfig> providers = new ArrayList<>();
        private final List<McpServerConfig> mcpServers = new ArrayList<>();
        private final List<AgentConfig> agents = new ArrayList<>();
        private String entryAgent;
        private RedisConfig redis;
        private ApprovalSettings approvals;
        private ModelTable prices = ModelTable.empty();
        private ModelTable contextWindows = ModelTable.empty();
        private Telemetry telemetry;
        private Console console;

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
        public Builder approvals(ApprovalSettings value) {
            this.approvals = value;
            return this;
        }

        /**
         * Sends OpenTelemetry traces and metrics over OTLP (needs {@code shelly-otel} on the class path).
         *
         * @param value the telemetry settings
         * @return this builder
         */
        public Builder telemetry(Telemetry value) {
            this.telemetry = value;
            return this;
        }

        /**
         * Starts a browser console with the engine (needs {@code shelly-console} on the class path).
         *
         * @param value the console settings
         * @return this builder
         */
        public Builder console(Console value) {
            this.console = value;
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
                    approvals, telemetry, console),
                    Locations.NONE);
        }
    }
}
