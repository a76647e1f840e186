package dev.shelly.engine.config;

import dev.shelly.agent.Agent;
import dev.shelly.modeladapter.ModelTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

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
    /** The settings file of a settings folder ({@code .shelly}, {@code ~/.shelly}). */
    public static final String CONFIG_FILE = "config.yaml";
    /** The folder of agent files ({@code NAME.md}) in a settings folder. */
    public static final String AGENTS_DIR = "agents";
    /** The file in a skill's folder that declares the tools the skill brings. */
    public static final String SKILL_TOOLS_FILE = "tools.yaml";

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
        return parse(read(file), file.toString(), env);
    }

    /**
     * Reads the settings of a project, merged from their levels: the environment over the
     * project's folder over the user's folder over the defaults (the values the records take for
     * a field left out).
     *
     * <p>A settings folder holds {@value #CONFIG_FILE} and {@value #AGENTS_DIR}{@code /NAME.md},
     * agents written as markdown (see the engine's README); both are optional in the user's
     * folder. Within a folder, an agent defined both in the file and as markdown is an error
     * naming both files. Between the folders, {@code providers}, {@code mcp_servers} and
     * {@code agents} are merged by name (a project's entry replaces the user's entry of the same
     * name whole), {@code prices} and {@code context_windows} by model id, and every other
     * section is taken whole from the project when it has it. Then the environment variables
     * {@code SHELLY_ENTRY_AGENT}, {@code SHELLY_MODEL} (the entry agent's model) and
     * {@code SHELLY_<SECTION>_<FIELD>} for the single-valued fields of {@code approvals},
     * {@code redis} and {@code telemetry} override what the files say.
     *
     * <p>Every error names where the bad value came from: the file and line, in the file's own
     * terms (a user's agent is {@code agents[0]} of the user's file), or the variable.
     *
     * @param project the project's settings folder, {@code .shelly}
     * @param user the user's settings folder, {@code ~/.shelly}, or null for none; the project's
     *     own folder given again is not read twice
     * @param env looks up environment variables, for interpolation and the overrides
     * @return the configuration, its references not yet checked
     * @throws ConfigException when a file cannot be read or a value is wrong; when neither folder
     *     gives any setting, the error names the project's missing {@value #CONFIG_FILE}
     */
    public static EngineConfig loadSettings(Path project, Path user, Function<String, String> env) {
        if (project == null) {
            throw new IllegalArgumentException("ConfigLoader.loadSettings project must not be null");
        }
        if (env == null) {
            throw new IllegalArgumentException("ConfigLoader.loadSettings env must not be null");
        }
        Path projectFile = project.resolve(CONFIG_FILE);
        Layer settings = folder(project, env);
        if (user != null && !user.toAbsolutePath().normalize().equals(project.toAbsolutePath().normalize())) {
            settings = settings.over(folder(user, env));
        }
        if (settings.isEmpty() && !Files.exists(projectFile)) {
            read(projectFile); // names the missing file
        }
        EnvOverrides.apply(settings, env);
        Locations at = new Locations(projectFile.toString(), settings.places());
        return new EngineConfig(ConfigBinder.bind(settings.root(), Sections.class, at), at);
    }

    /** The settings of one folder: its file, and its agent files as further entries of {@code agents}. */
    private static Layer folder(Path dir, Function<String, String> env) {
        Path file = dir.resolve(CONFIG_FILE);
        Layer layer = Layer.empty();
        if (Files.exists(file)) {
            ConfigTree.Parsed parsed = ConfigTree.parse(read(file), file.toString(), env);
            if (parsed.root() != null && !parsed.root().isNull()) {
                if (!(parsed.root() instanceof ObjectNode root)) {
                    throw new ConfigException(file.toString(), 1, "", "expected a mapping of sections (providers, agents, "
                            + "...), got " + ConfigBinder.describe(parsed.root()));
                }
                layer = new Layer(root, new HashMap<>(parsed.locations().places()));
            }
        }
        List<AgentFiles.AgentFile> agents = AgentFiles.read(dir.resolve(AGENTS_DIR), env);
        if (agents.isEmpty()) {
            return layer;
        }
        JsonNode list = layer.root().get("agents");
        if (list != null && !list.isArray()) {
            return layer; // binding reports that agents: is not a list
        }
        ArrayNode entries = list == null ? layer.root().putArray("agents") : (ArrayNode) list;
        for (AgentFiles.AgentFile agent : agents) {
            for (int i = 0; i < entries.size(); i++) {
                if (agent.name().equals(Layer.nameOf(entries.get(i)))) {
                    Locations.Place place = layer.places().get("agents[" + i + "].name");
                    throw new ConfigException(agent.file().toString(), 1, "", "agent '" + agent.name()
                            + "' is defined twice: in this file and in " + file
                            + (place == null ? "" : ":" + place.line()) + " (agents[" + i + "]); define it in one of them");
                }
            }
            int index = entries.size();
            entries.add(agent.entry());
            Layer.copy(agent.places(), "", "agents[" + index + "]", layer.places());
        }
        return layer;
    }

    /**
     * Reads the tools a skill's folder declares in its {@value #SKILL_TOOLS_FILE}: MCP servers
     * ({@code mcp_servers:}, each entry exactly as in {@code config.yaml}) and programs run as
     * tools ({@code tools:}). The file is read as {@code config.yaml} is: {@code ${VAR}} from the
     * environment, and {@code ${SHELLY_SKILL_DIR}} for the skill's folder; unknown fields are errors.
     * A relative {@code working_dir}, and a {@code command} written as a path
     * ({@code scripts/lint.sh}, {@code ./server}), are resolved against the skill's folder, which
     * is also the working directory unless {@code working_dir} says otherwise; a bare program name
     * ({@code node}, {@code npx}) is looked up on the PATH.
     *
     * <pre>{@code
     * mcp_servers:
     *   - name: tracker
     *     command: node
     *     args: [server.js]                 # in the skill's folder, the server's working directory
     *     env: { TRACKER_TOKEN: "${TRACKER_TOKEN}" }
     *   - name: docs
     *     url: https://mcp.example.com/mcp
     * tools:
     *   - name: word_count
     *     description: Counts the words of a text
     *     command: scripts/count.sh         # gets the call's arguments as JSON on stdin
     *     input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
     *     timeout: 30s                      # optional; 60s when left out
     * }</pre>
     *
     * @param skillDir the skill's folder
     * @param env looks up environment variables for interpolation
     * @return what the file declares, or empty when the folder has no {@value #SKILL_TOOLS_FILE}
     * @throws ConfigException naming the file, the line and the field when the file cannot be
     *     read or a value is wrong, or a server or tool name is given twice
     */
    public static Optional<SkillTools> loadSkillTools(Path skillDir, Function<String, String> env) {
        return loadSkillTools(skillDir, env, null);
    }

    /**
     * Reads a skill folder's {@value #SKILL_TOOLS_FILE}, as {@link #loadSkillTools(Path, Function)}
     * does, and checks that each server's {@code sampling:} names the agent's model or one of the
     * configured providers.
     *
     * @param skillDir the skill's folder
     * @param env looks up environment variables for interpolation
     * @param providers the configured providers' names; null checks no {@code sampling:}
     * @return what the file declares, or empty when the folder has no {@value #SKILL_TOOLS_FILE}
     * @throws ConfigException naming the file, the line and the field when the file cannot be
     *     read or a value is wrong, a server or tool name is given twice, or {@code sampling:}
     *     names a provider that is not configured
     */
    public static Optional<SkillTools> loadSkillTools(Path skillDir, Function<String, String> env, Set<String> providers) {
        if (skillDir == null) {
            throw new IllegalArgumentException("ConfigLoader.loadSkillTools skillDir must not be null");
        }
        if (env == null) {
            throw new IllegalArgumentException("ConfigLoader.loadSkillTools env must not be null");
        }
        return SkillToolsFile.load(skillDir, env, providers);
    }

    /**
     * What a skill's {@value #SKILL_TOOLS_FILE} declares: started for a run when an agent loads
     * the skill, stopped when the run ends.
     *
     * @param file the file, for messages
     * @param mcpServers the MCP servers, their relative paths resolved against the skill's folder
     * @param tools the programs run as tools
     */
    public record SkillTools(Path file, List<McpServerConfig> mcpServers, List<ScriptTool> tools) {
        /** Checks and copies the lists. */
        public SkillTools {
            if (file == null || mcpServers == null || tools == null) {
                throw new IllegalArgumentException("ConfigLoader.SkillTools file, mcpServers and tools must not be null");
            }
            mcpServers = List.copyOf(mcpServers);
            tools = List.copyOf(tools);
        }

        /**
         * Whether the file declares anything.
         *
         * @return true when it declares no server and no tool
         */
        public boolean isEmpty() {
            return mcpServers.isEmpty() && tools.isEmpty();
        }
    }

    /**
     * A program of a skill run as a tool: each call starts it in {@code workingDir} with the
     * call's arguments as JSON on its standard input; what it writes to standard output is the
     * result, and an exit status other than 0 makes the result an error (with what it wrote to
     * standard error). It gets the small environment MCP servers get ({@code HOME},
     * {@code LOGNAME}, {@code PATH}, {@code SHELL}, {@code TERM}, {@code USER}) plus {@code env}.
     *
     * @param name the tool's name
     * @param description what the model is told the tool does
     * @param command the program: an absolute path, or a name looked up on the PATH
     * @param args its arguments
     * @param env variables set for it
     * @param inputSchema the JSON schema of the arguments, as JSON text
     * @param timeout how long one call may run before it is killed
     * @param workingDir where it runs: the skill's folder
     */
    public record ScriptTool(String name, String description, String command, List<String> args,
            Map<String, String> env, String inputSchema, Duration timeout, Path workingDir) {
        /** Checks and copies the list and the map. */
        public ScriptTool {
            if (name == null || description == null || command == null || inputSchema == null || timeout == null
                    || workingDir == null) {
                throw new IllegalArgumentException("ConfigLoader.ScriptTool of '" + name + "': only args and env may be null");
            }
            args = args == null ? List.of() : List.copyOf(args);
            env = env == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(env));
        }
    }

    /**
     * Reads a settings file whole, refusing one over {@value #MAX_BYTES} bytes before reading it.
     *
     * @throws ConfigException naming the file when it cannot be read or is too large
     */
    static String read(Path file) {
        try {
            long size = Files.size(file);
            if (size > MAX_BYTES) {
                throw tooLarge(file.toString(), size + " bytes");
            }
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException(file.toString(), 0, "", "cannot read the file: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " " + e.getMessage()));
        }
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
