package dev.shelly.engine.config;

import dev.shelly.modeladapter.spi.InvalidSettingException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * Reads a skill folder's {@value ConfigLoader#SKILL_TOOLS_FILE}: the same YAML dialect as
 * {@code config.yaml} (its parser, {@code ${VAR}} interpolation, snake-case fields, errors with
 * file and line), its {@code mcp_servers:} entries bound onto {@link McpServerConfig} exactly as
 * {@code config.yaml}'s are, and its {@code tools:} entries onto {@link ConfigLoader.ScriptTool}.
 * Relative paths are made absolute against the skill's folder here, once.
 */
final class SkillToolsFile {
    /** The variable that names the skill's folder inside its file. */
    static final String SKILL_DIR = "SHELLY_SKILL_DIR";
    /** What a tool name may be: what model providers accept. */
    private static final Pattern TOOL_NAME = Pattern.compile("[a-zA-Z0-9_-]{1,64}");
    /** How long a script may run unless its entry says. */
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    private SkillToolsFile() {}

    /**
     * The file as it is bound.
     *
     * @param mcpServers the {@code mcp_servers:} list
     * @param tools the {@code tools:} list
     */
    record Declared(List<McpServerConfig> mcpServers, List<Script> tools) {
        Declared {
            mcpServers = mcpServers == null ? List.of() : mcpServers;
            tools = tools == null ? List.of() : tools;
        }
    }

    /** One {@code tools:} entry as it is bound. */
    record Script(String name, String description, String command, List<String> args, Map<String, String> env,
            JsonNode inputSchema, Duration timeout) {
        Script {
            Fields.required(name, "name");
            if (!TOOL_NAME.matcher(name).matches()) {
                throw new InvalidSettingException("name", "a tool name is 1 to 64 letters, digits, '_' or '-', got '"
                        + name + "'");
            }
            Fields.required(description, "description");
            Fields.required(command, "command");
            if (inputSchema != null && !(inputSchema.isObject() && inputSchema.path("type").asString("").equals("object"))) {
                throw new InvalidSettingException("input_schema", "expected a JSON schema of an object"
                        + " ({ type: object, properties: ... }), got " + ConfigBinder.describe(inputSchema));
            }
            if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
                throw new InvalidSettingException("timeout", "expected a positive duration, got " + timeout);
            }
        }
    }

    /**
     * Reads the file of a skill's folder.
     *
     * @param providers the configured providers, which {@code sampling:} may name; null checks no {@code sampling:}
     */
    static Optional<ConfigLoader.SkillTools> load(Path skillDir, Function<String, String> env, Set<String> providers) {
        Path dir = skillDir.toAbsolutePath().normalize();
        Path file = dir.resolve(ConfigLoader.SKILL_TOOLS_FILE);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        Function<String, String> vars = name -> name.equals(SKILL_DIR) ? dir.toString() : env.apply(name);
        ConfigTree.Parsed parsed = ConfigTree.parse(ConfigLoader.read(file), file.toString(), vars);
        if (parsed.root() == null || parsed.root().isNull()) {
            return Optional.of(new ConfigLoader.SkillTools(file, List.of(), List.of()));
        }
        if (!parsed.root().isObject()) {
            throw new ConfigException(file.toString(), 1, "", "expected a mapping of mcp_servers and tools, got "
                    + ConfigBinder.describe(parsed.root()));
        }
        Declared declared = ConfigBinder.bind(parsed.root(), Declared.class, parsed.locations());
        Set<String> names = new HashSet<>();
        List<McpServerConfig> servers = new ArrayList<>();
        for (int i = 0; i < declared.mcpServers().size(); i++) {
            McpServerConfig s = declared.mcpServers().get(i);
            if (!names.add(s.name())) {
                throw parsed.locations().error("mcp_servers[" + i + "].name", "MCP server '" + s.name() + "' is declared twice");
            }
            String sampling = s.sampling();
            if (providers != null && sampling != null && !sampling.equals(McpServerConfig.AGENT_MODEL)
                    && !providers.contains(sampling)) {
                throw parsed.locations().error("mcp_servers[" + i + "].sampling", "sampling names provider '" + sampling
                        + "', which is not configured; configured providers: " + String.join(", ", new TreeSet<>(providers)));
            }
            servers.add(s.isStdio() ? new McpServerConfig(s.name(), program(dir, s.command()), s.args(), s.env(),
                    dir.resolve(s.workingDir() == null ? Path.of(".") : s.workingDir()).normalize(), null, s.headers(),
                    s.resources(), s.prompts(), s.sampling(), s.elicitation(), s.oauth()) : s);
        }
        names.clear();
        List<ConfigLoader.ScriptTool> tools = new ArrayList<>();
        for (int i = 0; i < declared.tools().size(); i++) {
            Script t = declared.tools().get(i);
            if (!names.add(t.name())) {
                throw parsed.locations().error("tools[" + i + "].name", "tool '" + t.name() + "' is declared twice");
            }
            tools.add(new ConfigLoader.ScriptTool(t.name(), t.description(), program(dir, t.command()), t.args(), t.env(),
                    t.inputSchema() == null ? "{\"type\":\"object\"}" : t.inputSchema().toString(),
                    t.timeout() == null ? DEFAULT_TIMEOUT : t.timeout(), dir));
        }
        return Optional.of(new ConfigLoader.SkillTools(file, servers, tools));
    }

    /**
     * A program named by a path ({@code scripts/run.sh}, {@code ./server}) is in the skill's
     * folder; a bare name ({@code node}, {@code npx}) is looked up on the PATH.
     */
    private static String program(Path dir, String command) {
        if (command.indexOf('/') < 0 && command.indexOf('\\') < 0) {
            return command;
        }
        return dir.resolve(command).normalize().toString();
    }
}
