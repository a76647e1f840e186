package dev.shelly.engine;

import dev.shelly.agent.Agent;
import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.ConfigLoader;
import dev.shelly.engine.config.McpServerConfig;
import dev.shelly.skills.Skill;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tools the skills' folders bring ({@value ConfigLoader#SKILL_TOOLS_FILE}), started for an
 * agent's run when it loads the skill and stopped when the run ends.
 *
 * <p>Each run starts its own servers: a server may keep state (a browser, a login, files it
 * opened), and runs of different sessions must not see each other's; a stdio server starts in
 * far less time than a model call takes, and the server's life is then exactly the run's, with
 * nothing counted across threads. A server that does not start is reported to the model in the
 * {@code load_skill} result (and the agent logs it), naming the skill's file and the server, and the run
 * goes on with the skill's other tools: the skill's procedure is still worth reading, and the
 * model can work around a missing tool or tell the person, as it does for a failing tool call.
 * A file that is wrong (a bad field, a sampling provider that is not configured) fails the engine
 * when it is built, as {@code config.yaml} does.
 */
final class SkillFolders implements Agent.SkillTools {
    private static final Logger LOG = LoggerFactory.getLogger(SkillFolders.class);

    private final Map<String, ConfigLoader.SkillTools> declared;
    /** Connects the skills' MCP servers; null when no skill declares one. */
    private final McpServers mcp;

    private SkillFolders(Map<String, ConfigLoader.SkillTools> declared, McpServers mcp) {
        this.declared = declared;
        this.mcp = mcp;
    }

    /**
     * Reads every skill folder's declarations.
     *
     * @param skills the loaded skills
     * @param env looks up environment variables
     * @param providers the configured providers' names, which {@code sampling:} may name
     * @return the declarations by skill name, only of skills that declare something
     * @throws ConfigException naming the file and field of a wrong value
     */
    static Map<String, ConfigLoader.SkillTools> read(List<Skill> skills, Function<String, String> env,
            Set<String> providers) {
        Map<String, ConfigLoader.SkillTools> all = new LinkedHashMap<>();
        for (Skill skill : skills) {
            if (skill.dir() == null) {
                continue;
            }
            ConfigLoader.SkillTools tools = ConfigLoader.loadSkillTools(skill.dir(), env, providers).orElse(null);
            if (tools == null || tools.isEmpty()) {
                continue;
            }
            all.put(skill.name(), tools);
        }
        return all;
    }

    /**
     * The skill tools of an engine.
     *
     * @param declared what the skills declare, by skill name
     * @param mcp connects MCP servers, made only when a skill declares one
     * @return the skill tools, {@link Agent.SkillTools#NONE} when no skill declares anything
     * @throws ConfigException naming a skill's file when it declares MCP servers and shelly-mcp is
     *     not on the class path
     */
    static Agent.SkillTools of(Map<String, ConfigLoader.SkillTools> declared,
            Supplier<McpServers> mcp) {
        if (declared.isEmpty()) {
            return Agent.SkillTools.NONE;
        }
        McpServers servers = null;
        for (ConfigLoader.SkillTools tools : declared.values()) {
            if (!tools.mcpServers().isEmpty()) {
                McpSupport.require(tools.mcpServers(), "the skill brings MCP servers", Engine.class.getClassLoader(),
                        message -> new ConfigException(tools.file().toString(), 0, "mcp_servers", message));
                if (servers == null) {
                    servers = mcp.get();
                }
            }
        }
        return new SkillFolders(Map.copyOf(declared), servers);
    }

    @Override
    public Started start(Skill skill, ToolContext context) {
        ConfigLoader.SkillTools tools = declared.get(skill.name());
        if (tools == null || skill.dir() == null) {
            return Started.NONE;
        }
        List<ToolBox> boxes = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        List<McpConnection> connected = new ArrayList<>();
        for (McpServerConfig server : tools.mcpServers()) {
            if (Thread.currentThread().isInterrupted()) {
                problems.add("MCP server '" + server.name() + "' of " + tools.file() + " was not started: the run was cancelled");
                continue;
            }
            try {
                McpConnection connection = mcp.open(server);
                connected.add(connection);
                boxes.add(connection.toolBox().get());
            } catch (RuntimeException e) {
                problems.add("MCP server '" + server.name() + "' of " + tools.file() + " did not start: "
                        + (e.getMessage() == null ? e.toString() : e.getMessage()));
            }
        }
        if (!tools.tools().isEmpty()) {
            boxes.add(SkillScripts.toolbox(tools.tools()));
        }
        return new Started(boxes, problems, () -> stop(skill, connected));
    }

    private static void stop(Skill skill, List<McpConnection> connected) {
        for (McpConnection c : connected) {
            try {
                c.close().run();
            } catch (RuntimeException e) {
                LOG.warn("closing MCP server '{}' of skill '{}' failed: {}", c.name(), skill.name(), e.toString());
            }
        }
    }
}
