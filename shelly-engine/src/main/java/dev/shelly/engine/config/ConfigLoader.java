package dev.shelly.engine.config;

import dev.shelly.agent.Agent;
import dev.shelly.modeladapter.ModelTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads {@code config.yaml} into an {@link EngineConfig}.
 *
 * <p>The loader checks each value; references between sections (an agent's provider, toolboxes,
 * skills, the entry agent) are checked by {@link EngineConfig#check(Set, Set)}, which the engine
 * calls once it knows the skills and the toolboxes registered in code.
 *
 * <p>The YAML is bound onto the config records ({@link ProviderConfig}, {@link AgentConfig}, ...)
 * by Jackson: a field is a record component, named in snake case. Unknown fields are errors (a typo
 * must not be silently ignored), except in a provider, whose fields beyond the components are its
 * kind's own settings, checked when the engine builds the provider; {@code ${VAR}} and
 * {@code ${VAR:-default}} in any value are replaced from the environment (<code>$${</code> is a
 * literal <code>${</code>). Every error is a {@link ConfigException} naming the file, the line, the field's path
 * and what was expected.
 *
 * <p>Hostile or broken files fail fast with a {@code ConfigException} too: a file (or text) over
 * {@value #MAX_BYTES} bytes (1 MiB) is refused before it is read, and collections nested more than
 * {@value #MAX_DEPTH} levels deep are refused while parsing, so neither a deep document nor a huge
 * scalar can overflow the stack or take long to parse. Aliases ({@code *name}) are refused, so a
 * document cannot expand itself.
 *
 * <pre>{@code
 * providers:
 *   - name: claude
 *     kind: anthropic                  # anthropic | openai | grok | gemini | openai-compatible
 *     model: claude-sonnet-4-5
 *     api_key: ${ANTHROPIC_API_KEY}    # optional: read from the environment anyway
 *     max_tokens: 4096
 *     retry: { max_attempts: 4, initial_delay: 1s, max_delay: 30s }
 * mcp_servers:
 *   - name: files
 *     command: npx
 *     args: [-y, "@modelcontextprotocol/server-filesystem", "."]
 *   - name: docs
 *     url: https://mcp.example.com/mcp
 *     resources: true                  # optional: list_resources and read_resource tools
 *     prompts: true                    # optional: a get_prompt tool
 *     sampling: claude                 # optional: its sampling requests go to this provider's model
 *                                      # (true: the calling agent's), as model calls of the calling run
 *     elicitation: true                # optional: its questions go to the person (the run's approvals)
 *     oauth:                           # optional: OAuth 2.1 as the MCP authorization spec has it
 *       scopes: [docs.read]            # also client_id, client_secret, client_name, grant, resource,
 *                                      # redirect_uri, consent (see McpServerConfig.OAuth)
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
 * to its price in US dollars per million tokens, laid over {@link ModelTable#defaults()}:
 * {@code input} and {@code output} are required; {@code cache_read} and {@code cache_write} default
 * to the input price.
 */
public final class ConfigLoader {
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
        ConfigTree.Parsed parsed = ConfigTree.parse(yaml, fileName, env);
        if (parsed.root() == null || parsed.root().isNull()) {
            throw new ConfigException(fileName, 0, "", "the file is empty; expected at least 'providers' and 'agents'");
        }
        if (!parsed.root().isObject()) {
            throw new ConfigException(fileName, 1, "", "expected a mapping of sections (providers, agents, ...), got "
                    + ConfigBinder.describe(parsed.root()));
        }
        return new EngineConfig(ConfigBinder.bind(parsed.root(), Sections.class, parsed.locations()), parsed.locations());
    }

    private static ConfigException tooLarge(String fileName, String size) {
        return new ConfigException(fileName, 0, "", "the file is too large (" + size + "); a configuration may be at most "
                + MAX_BYTES + " bytes (1 MiB)");
    }
}
