package dev.shelly.engine;

import dev.shelly.agent.ToolPolicy;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.tools.ToolBox;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Whether shelly-coding, an optional dependency of the engine, is on the class path, and the
 * coding toolboxes of the agents that have a {@code coding:} section. Names no type of
 * shelly-coding, so it loads without it; only {@link CodingAgents} does, and it is touched only
 * when an agent asks for the toolbox.
 */
final class CodingSupport {
    /** The class whose presence means shelly-coding is there. */
    static final String TOOLS_CLASS = "dev.shelly.coding.CodingTools";

    /**
     * One agent's coding toolbox.
     *
     * @param toolBox the tools
     * @param policy lays the toolbox's approval defaults beneath the agent's policy
     */
    record Coding(ToolBox toolBox, UnaryOperator<ToolPolicy> policy) {}

    private CodingSupport() {}

    /**
     * The coding toolboxes of the configured agents, by agent name.
     *
     * @param config the engine's config
     * @param projectDir the directory relative workspaces are resolved against
     * @param loader the class loader the engine's classes come from
     * @throws dev.shelly.engine.config.ConfigException at {@code agents[i].coding} when shelly-coding
     *     cannot be loaded or the workspace is not a directory
     */
    static Map<String, Coding> build(EngineConfig config, Path projectDir, ClassLoader loader) {
        Map<String, Coding> out = new LinkedHashMap<>();
        for (int i = 0; i < config.agents().size(); i++) {
            AgentConfig a = config.agents().get(i);
            if (a.coding() == null) {
                continue;
            }
            try {
                Class.forName(TOOLS_CLASS, false, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                throw config.errorAt("agents[" + i + "].coding", "agent '" + a.name() + "' has a coding toolbox, but "
                        + "shelly-coding is not on the class path; add the dependency dev.shelly:shelly-coding (the "
                        + "engine depends on it as optional, so that applications without coding agents do not carry it)");
            }
            try {
                out.put(a.name(), CodingAgents.build(a.coding(), projectDir));
            } catch (IllegalArgumentException e) {
                throw config.errorAt("agents[" + i + "].coding", e.getMessage());
            }
        }
        return Map.copyOf(out);
    }
}
