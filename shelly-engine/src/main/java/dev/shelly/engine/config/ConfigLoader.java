package dev.shelly.engine.config;

import dev.shelly.agent.Agent;
import dev.shelly.modeladapter.Price;
import dev.shelly.modeladapter.PriceTable;
import dev.shelly.skills.internal.DepthLimitedParser;
import java.io.IOException;
import java.io.StringReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.composer.Composer;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.parser.ParserImpl;
import org.snakeyaml.engine.v2.scanner.StreamReader;

/**
 * Reads {@code config.yaml} into an {@link EngineConfig}.
 *
 * <p>The loader checks each value; references between sections (an agent's provider, toolboxes,
 * skills, the entry agent) are checked by {@link EngineConfig#check(Set, Set)}, which the engine
 * calls once it knows the skills and the toolboxes registered in code.
 *
 * <p>Unknown fields are errors (a typo must not be silently ignored); {@code ${VAR}} and
 * {@code ${VAR:-default}} in any value are replaced from the environment. Every error is a
 * {@link ConfigException} naming the file, the line, the field's path and what was expected.
 *
 * <p>Hostile or broken files fail fast with a {@code ConfigException} too: a file (or text) over
 * {@value #MAX_BYTES} bytes (1 MiB) is refused before it is read, and collections nested more than
 * {@value #MAX_DEPTH} levels deep are refused while parsing, so neither a deep document nor a huge
 * scalar can overflow the stack or take long to parse.
 *
 * <pre>{@code
 * providers:
 *   - name: claude
 *     kind: anthropic                  # anthropic | openai | grok | openai-compatible
 *     model: claude-sonnet-4-5
 *     api_key: ${ANTHROPIC_API_KEY}    # optional: read from the environment anyway
 *     max_tokens: 4096
 *     retry: { max_attempts: 4, initial_delay: 1s, max_delay: 30s }
 * mcp_servers:
 *   - name: files
 *     command: npx
 *     args: [-y, "@modelcontextprotocol/server-filesystem", "."]
 * agents:
 *   - name: assistant
 *     description: Answers questions about the project
 *     instructions: Be brief.
 *     provider: claude
 *     toolboxes: [files, { name: state, tools: [shared_state_get] }]
 *     options: { max_iterations: 20, max_delegation_depth: 2, max_tool_result_chars: 100000 }
 *     prompt_caching: true             # optional: cache hints on every request (the default)
 * entry_agent: assistant
 * prices:                            # optional: US dollars per million tokens, over the shipped list
 *   my-model: { input: 0.5, output: 1.5, cache_read: 0.05, cache_write: 0.6 }
 * redis:                             # optional: state, tasks, sessions and rate limits shared in Redis
 *   url: redis://:${REDIS_PASSWORD}@localhost:6379
 *   key_prefix: "shelly:"
 * }</pre>
 *
 * <p>An agent's {@code options} are optional: {@code max_iterations} is a positive whole number
 * or {@code unlimited} ({@value Agent#DEFAULT_MAX_ITERATIONS} when left out);
 * {@code max_delegation_depth} is how deep the agent may delegate to the other configured agents
 * ({@value Agent#DEFAULT_MAX_DELEGATION_DEPTH} when left out: the agent delegates, the agents it
 * delegates to work alone; 0 turns delegation off). {@code prompt_caching: false} sends no
 * prompt-cache hints for that agent.
 *
 * <p>{@code prices} maps a model id (or the prefix of dated ids, as {@code claude-sonnet-4-5})
 * to its price in US dollars per million tokens, laid over {@link PriceTable#defaults()}:
 * {@code input} and {@code output} are required; {@code cache_read} and {@code cache_write} default
 * to the input price.
 */
public final class ConfigLoader {
    private static final Set<String> TOP = Set.of("providers", "mcp_servers", "agents", "entry_agent", "redis",
            "prices");
    private static final Set<String> PROVIDER = Set.of("name", "kind", "model", "base_url", "api_key", "max_tokens",
            "temperature", "timeout", "headers", "retry", "rate_limit");
    private static final Set<String> RETRY = Set.of("max_attempts", "initial_delay", "max_delay");
    private static final Set<String> RATE_LIMIT = Set.of("requests_per_minute", "tokens_per_minute");
    private static final Set<String> REDIS = Set.of("url", "key_prefix", "tls", "timeout");
    private static final Set<String> MCP = Set.of("name", "command", "args", "env", "working_dir", "url", "headers");
    private static final Set<String> AGENT = Set.of("name", "description", "instructions", "provider", "toolboxes",
            "skills", "options", "prompt_caching");
    private static final Set<String> TOOLBOX = Set.of("name", "tools");
    private static final Set<String> OPTIONS = Set.of("max_iterations", "max_delegation_depth", "max_tool_result_chars");
    private static final Set<String> PRICE = Set.of("input", "output", "cache_read", "cache_write");

    /** The largest configuration read: 1 MiB. */
    public static final int MAX_BYTES = 1024 * 1024;
    /** How deeply collections may nest in a configuration. */
    public static final int MAX_DEPTH = 50;

    private ConfigLoader() {}

    /**
     * Reads a configuration file, interpolating from the process environment.
     *
     * @param file the YAML file
     * @return the configuration, its references not yet checked
     * @throws ConfigException when the file cannot be read or is wrong
     */
    public static EngineConfig load(Path file) {
        return load(file, System::getenv);
    }

    /**
     * Reads a configuration file.
     *
     * @param file the YAML file
     * @param env looks up environment variables for interpolation
     * @return the configuration, its references not yet checked
     * @throws ConfigException when the file cannot be read or is wrong
     */
    public static EngineConfig load(Path file, Function<String, String> env) {
        if (file == null) {
            throw new IllegalArgumentException("ConfigLoader.load file must not be null");
        }
        if (env == null) {
            throw new IllegalArgumentException("ConfigLoader.load env must not be null");
        }
        String text;
        try {
            long size = Files.size(file);
            if (size > MAX_BYTES) {
                throw tooLarge(file.toString(), size + " bytes");
            }
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException(file.toString(), 0, "", "cannot read the file: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " " + e.getMessage()));
        }
        return parse(text, file.toString(), env);
    }

    /**
     * Reads configuration text.
     *
     * @param yaml the YAML text
     * @param fileName the name to use in error messages
     * @param env looks up environment variables for interpolation
     * @return the configuration, its references not yet checked
     * @throws ConfigException when the text is wrong
     */
    public static EngineConfig parse(String yaml, String fileName, Function<String, String> env) {
        if (yaml == null) {
            throw new IllegalArgumentException("ConfigLoader.parse yaml must not be null");
        }
        if (fileName == null) {
            throw new IllegalArgumentException("ConfigLoader.parse fileName must not be null");
        }
        if (env == null) {
            throw new IllegalArgumentException("ConfigLoader.parse env must not be null");
        }
        if (yaml.length() > MAX_BYTES) {
            throw tooLarge(fileName, yaml.length() + " characters");
        }
        Optional<Node> root;
        try {
            // What Compose does inside, through packages the org.snakeyaml.engine module exports
            // (Compose's own package is not exported), so this works on the module path too.
            // One buffer for the whole text: with the default small buffer, a long scalar is
            // copied again for every chunk read, which takes time quadratic in its length.
            LoadSettings settings = LoadSettings.builder().setLabel(fileName).setBufferSize(yaml.length() + 1)
                    .setCodePointLimit(MAX_BYTES + 1).build();
            ParserImpl parser = new ParserImpl(settings, new StreamReader(settings, new StringReader(yaml)));
            root = new Composer(settings, new DepthLimitedParser(parser, MAX_DEPTH)).getSingleNode();
        } catch (DepthLimitedParser.TooDeep e) {
            throw new ConfigException(fileName, e.line(), "", e.getMessage() + "; at most " + MAX_DEPTH + " are allowed");
        } catch (MarkedYamlEngineException e) {
            int line = e.getProblemMark().map(m -> m.getLine() + 1).orElse(0);
            throw new ConfigException(fileName, line, "", "not valid YAML: " + e.getProblem());
        } catch (YamlEngineException e) {
            throw new ConfigException(fileName, 0, "", "not valid YAML: " + e.getMessage());
        }
        if (root.isEmpty()) {
            throw new ConfigException(fileName, 0, "", "the file is empty; expected at least 'providers' and 'agents'");
        }
        Map<String, Integer> lines = new HashMap<>();
        ConfigNode top = new ConfigNode(fileName, "", root.get(), env, lines);
        Map<String, ConfigNode> fields = top.mapping(TOP);

        List<ProviderConfig> providers = new ArrayList<>();
        for (ConfigNode p : ConfigNode.present(fields, "providers").map(ConfigNode::sequence).orElse(List.of())) {
            providers.add(provider(p));
        }
        List<McpServerConfig> servers = new ArrayList<>();
        for (ConfigNode s : ConfigNode.present(fields, "mcp_servers").map(ConfigNode::sequence).orElse(List.of())) {
            servers.add(mcpServer(s));
        }
        List<AgentConfig> agents = new ArrayList<>();
        for (ConfigNode a : ConfigNode.present(fields, "agents").map(ConfigNode::sequence).orElse(List.of())) {
            agents.add(agent(a));
        }
        String entry = ConfigNode.present(fields, "entry_agent").map(ConfigNode::nonBlank).orElse(null);
        RedisConfig redis = ConfigNode.present(fields, "redis").map(ConfigLoader::redis).orElse(null);
        PriceTable prices = ConfigNode.present(fields, "prices").map(ConfigLoader::prices).orElse(PriceTable.empty());
        return new EngineConfig(providers, servers, agents, entry, redis, prices, fileName, lines);
    }

    private static ConfigException tooLarge(String fileName, String size) {
        return new ConfigException(fileName, 0, "", "the file is too large (" + size + "); a configuration may be at most "
                + MAX_BYTES + " bytes (1 MiB)");
    }

    private static ProviderConfig provider(ConfigNode node) {
        Map<String, ConfigNode> f = node.mapping(PROVIDER);
        String name = ConfigNode.required(node, f, "name").nonBlank();
        ConfigNode kindNode = ConfigNode.required(node, f, "kind");
        ProviderKind kind;
        try {
            kind = ProviderKind.parse(kindNode.string());
        } catch (IllegalArgumentException e) {
            throw kindNode.error(e.getMessage());
        }
        ProviderConfig.Builder b = ProviderConfig.builder(name, kind, ConfigNode.required(node, f, "model").nonBlank());
        ConfigNode.present(f, "base_url").ifPresent(v -> b.baseUrl(v.url()));
        ConfigNode.present(f, "api_key").map(ConfigNode::string).filter(k -> !k.isBlank()).ifPresent(b::apiKey);
        ConfigNode.present(f, "max_tokens").ifPresent(v -> b.maxTokens(v.positiveInt()));
        ConfigNode.present(f, "temperature").ifPresent(v -> b.temperature(v.number(0, 2)));
        ConfigNode.present(f, "timeout").ifPresent(v -> b.timeout(v.duration()));
        ConfigNode.present(f, "headers").ifPresent(v -> v.stringMap().forEach(b::header));
        ConfigNode.present(f, "retry").ifPresent(v -> b.retry(retry(v)));
        ConfigNode.present(f, "rate_limit").ifPresent(v -> {
            Map<String, ConfigNode> r = v.mapping(RATE_LIMIT);
            b.requestsPerMinute(ConfigNode.required(v, r, "requests_per_minute").positiveInt());
            ConfigNode.present(r, "tokens_per_minute").ifPresent(t -> b.tokensPerMinute(t.positiveInt()));
        });
        return b.build();
    }

    private static RedisConfig redis(ConfigNode node) {
        Map<String, ConfigNode> f = node.mapping(REDIS);
        ConfigNode urlNode = ConfigNode.required(node, f, "url");
        String url = urlNode.nonBlank().strip();
        String problem = RedisConfig.problemWith(url);
        if (problem != null) {
            throw urlNode.error(problem);
        }
        String prefix = ConfigNode.present(f, "key_prefix").map(ConfigNode::string).orElse(RedisConfig.DEFAULT_KEY_PREFIX);
        boolean tls = ConfigNode.present(f, "tls").map(ConfigNode::bool).orElse(url.startsWith("rediss://"));
        var timeout = ConfigNode.present(f, "timeout").map(ConfigNode::duration).orElse(RedisConfig.DEFAULT_TIMEOUT);
        return new RedisConfig(url, prefix, tls, timeout);
    }

    private static RetryConfig retry(ConfigNode node) {
        Map<String, ConfigNode> f = node.mapping(RETRY);
        RetryConfig d = RetryConfig.DEFAULT;
        int attempts = ConfigNode.present(f, "max_attempts").map(ConfigNode::positiveInt).orElse(d.maxAttempts());
        var initial = ConfigNode.present(f, "initial_delay").map(ConfigNode::duration).orElse(d.initialDelay());
        var max = ConfigNode.present(f, "max_delay").map(ConfigNode::duration).orElse(d.maxDelay());
        if (max.compareTo(initial) < 0) {
            throw f.get(f.containsKey("max_delay") ? "max_delay" : "initial_delay")
                    .error("max_delay (" + max + ") must not be shorter than initial_delay (" + initial + ")");
        }
        return new RetryConfig(attempts, initial, max);
    }

    private static McpServerConfig mcpServer(ConfigNode node) {
        Map<String, ConfigNode> f = node.mapping(MCP);
        String name = ConfigNode.required(node, f, "name").nonBlank();
        Optional<String> command = ConfigNode.present(f, "command").map(ConfigNode::nonBlank);
        Optional<String> url = ConfigNode.present(f, "url").map(ConfigNode::url);
        if (command.isPresent() == url.isPresent()) {
            throw node.error("MCP server '" + name + "' needs either 'command' (a subprocess speaking stdio) or 'url' "
                    + "(streamable HTTP), not " + (command.isPresent() ? "both" : "neither"));
        }
        if (url.isPresent()) {
            for (String stdioOnly : List.of("args", "env", "working_dir")) {
                if (f.containsKey(stdioOnly)) {
                    throw f.get(stdioOnly).error("'" + stdioOnly + "' applies to a command, not to a url server");
                }
            }
        } else if (f.containsKey("headers")) {
            throw f.get("headers").error("'headers' applies to a url server, not to a command");
        }
        return new McpServerConfig(name, command.orElse(null),
                ConfigNode.present(f, "args").map(ConfigNode::stringList).orElse(List.of()),
                ConfigNode.present(f, "env").map(ConfigNode::stringMap).orElse(Map.of()),
                ConfigNode.present(f, "working_dir").map(v -> Path.of(v.nonBlank())).orElse(null),
                url.orElse(null),
                ConfigNode.present(f, "headers").map(ConfigNode::stringMap).orElse(Map.of()));
    }

    private static AgentConfig agent(ConfigNode node) {
        Map<String, ConfigNode> f = node.mapping(AGENT);
        AgentConfig.Builder b = AgentConfig.builder(ConfigNode.required(node, f, "name").nonBlank());
        ConfigNode.present(f, "description").ifPresent(v -> b.description(v.string().strip()));
        ConfigNode.present(f, "instructions").ifPresent(v -> b.instructions(v.string().strip()));
        ConfigNode.present(f, "provider").ifPresent(v -> b.provider(v.nonBlank()));
        for (ConfigNode t : ConfigNode.present(f, "toolboxes").map(ConfigNode::sequence).orElse(List.of())) {
            if (t.isScalar()) {
                b.toolboxes(t.nonBlank());
            } else {
                Map<String, ConfigNode> tf = t.mapping(TOOLBOX);
                String toolbox = ConfigNode.required(t, tf, "name").nonBlank();
                List<String> tools = ConfigNode.present(tf, "tools").map(ConfigNode::stringList).orElse(List.of());
                b.toolbox(toolbox, tools.toArray(String[]::new));
            }
        }
        ConfigNode.present(f, "skills").ifPresent(v -> b.skills(v.stringList().toArray(String[]::new)));
        ConfigNode.present(f, "prompt_caching").ifPresent(v -> b.promptCaching(v.bool()));
        ConfigNode.present(f, "options").ifPresent(v -> {
            Map<String, ConfigNode> o = v.mapping(OPTIONS);
            ConfigNode.present(o, "max_iterations").ifPresent(x -> b.maxIterations(iterations(x)));
            ConfigNode.present(o, "max_delegation_depth").ifPresent(x -> b.maxDelegationDepth(x.nonNegativeInt()));
            ConfigNode.present(o, "max_tool_result_chars").ifPresent(x -> b.maxToolResultChars(x.positiveInt()));
        });
        return b.build();
    }

    /** {@code prices}: model id to {input, output, cache_read, cache_write}. */
    private static PriceTable prices(ConfigNode node) {
        PriceTable table = PriceTable.empty();
        for (Map.Entry<String, ConfigNode> model : node.entries().entrySet()) {
            ConfigNode entry = model.getValue();
            Map<String, ConfigNode> f = entry.mapping(PRICE);
            BigDecimal input = ConfigNode.required(entry, f, "input").price();
            BigDecimal output = ConfigNode.required(entry, f, "output").price();
            BigDecimal cacheRead = ConfigNode.present(f, "cache_read").map(ConfigNode::price).orElse(input);
            BigDecimal cacheWrite = ConfigNode.present(f, "cache_write").map(ConfigNode::price).orElse(input);
            table = table.with(model.getKey(), new Price(input, output, cacheRead, cacheWrite));
        }
        return table;
    }

    /** {@code max_iterations}: a positive whole number, or {@code unlimited}. */
    private static int iterations(ConfigNode node) {
        String text = node.string().strip();
        if (text.equalsIgnoreCase("unlimited")) {
            return Agent.UNLIMITED;
        }
        try {
            int value = Integer.parseInt(text);
            if (value > 0) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw node.error("expected a positive whole number or 'unlimited', got '" + text + "'");
    }
}
