package dev.shelly.engine.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The checks of {@link EngineConfig#check(Set, Set)}: every name unique, every reference to a
 * provider, toolbox, skill or agent resolved, every fallback chain free of cycles. Each problem is
 * a {@link ConfigException} at the field at fault.
 */
final class ConfigChecks {
    private final EngineConfig config;
    private final List<ProviderConfig> providers;
    private final List<McpServerConfig> mcpServers;
    private final List<AgentConfig> agents;
    private final String entryAgent;

    ConfigChecks(EngineConfig config, String entryAgent) {
        this.config = config;
        this.providers = config.providers();
        this.mcpServers = config.mcpServers();
        this.agents = config.agents();
        this.entryAgent = entryAgent;
    }

    void check(Set<String> availableSkills, Set<String> extraToolboxes) {
        unique("providers", providers.stream().map(ProviderConfig::name).toList());
        unique("mcp_servers", mcpServers.stream().map(McpServerConfig::name).toList());
        unique("agents", agents.stream().map(AgentConfig::name).toList());
        checkFallbacks();
        for (int i = 0; i < mcpServers.size(); i++) {
            if (EngineConfig.BUILT_IN_TOOLBOXES.contains(mcpServers.get(i).name())) {
                throw error("mcp_servers[" + i + "].name", "'" + mcpServers.get(i).name()
                        + "' is the name of a built-in toolbox; choose another name");
            }
        }
        Set<String> providerNames = providers.stream().map(ProviderConfig::name).collect(Collectors.toSet());
        for (int i = 0; i < mcpServers.size(); i++) {
            String sampling = mcpServers.get(i).sampling();
            if (sampling != null && !sampling.equals(McpServerConfig.AGENT_MODEL) && !providerNames.contains(sampling)) {
                throw error("mcp_servers[" + i + "].sampling", "sampling names provider '" + sampling
                        + "', which is not configured; configured providers: " + String.join(", ", new TreeSet<>(providerNames)));
            }
        }
        if (agents.isEmpty()) {
            throw error("agents", "no agent is configured; add at least one under 'agents'");
        }
        Set<String> toolboxes = new TreeSet<>(EngineConfig.BUILT_IN_TOOLBOXES);
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
            config.providerOf(agent);
            String summarizer = agent.context() == null ? null : agent.context().summarizer();
            if (summarizer != null && !config.providerNames().contains(summarizer)) {
                throw error("agents[" + i + "].context.summarizer", "unknown provider '" + summarizer + "'; expected one of: "
                        + EngineConfig.names(config.providerNames()));
            }
            for (int j = 0; j < agent.toolboxes().size(); j++) {
                String name = agent.toolboxes().get(j).name();
                if (!toolboxes.contains(name)) {
                    throw error("agents[" + i + "].toolboxes[" + j + "]", "unknown toolbox '" + name
                            + "'; expected an MCP server name or a built-in toolbox: " + EngineConfig.names(toolboxes));
                }
            }
            if (availableSkills != null && agent.skills() != null) {
                for (int j = 0; j < agent.skills().size(); j++) {
                    String skill = agent.skills().get(j);
                    if (!availableSkills.contains(skill)) {
                        throw error("agents[" + i + "].skills[" + j + "]", "unknown skill '" + skill + "'; "
                                + (availableSkills.isEmpty() ? "no skills are loaded (put them in .shelly/skills/<name>/SKILL.md)"
                                        : "expected one of: " + EngineConfig.names(availableSkills)));
                    }
                }
            }
        }
        Set<String> agentNames = new LinkedHashSet<>();
        agents.forEach(a -> agentNames.add(a.name()));
        for (int i = 0; i < agents.size(); i++) {
            List<String> targets = agents.get(i).delegateTargets();
            for (int j = 0; targets != null && j < targets.size(); j++) {
                if (targets.get(j).equals(agents.get(i).name())) {
                    throw error("agents[" + i + "].delegate_targets[" + j + "]", "an agent does not delegate to itself; "
                            + "name other agents");
                }
                if (!agentNames.contains(targets.get(j))) {
                    throw error("agents[" + i + "].delegate_targets[" + j + "]", "unknown agent '" + targets.get(j)
                            + "'; expected one of: " + EngineConfig.names(agentNames));
                }
            }
        }
        if (entryAgent != null && !agentNames.contains(entryAgent)) {
            throw error("entry_agent", "unknown agent '" + entryAgent + "'; expected one of: " + EngineConfig.names(agentNames));
        }
        if (config.entryAgent().isEmpty()) {
            throw error("entry_agent", "missing; with several agents, name the one that answers: " + EngineConfig.names(agentNames));
        }
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
                    throw error(path, "a fallback must name a provider; expected one of: " + EngineConfig.names(config.providerNames()));
                }
                if (name.equals(p.name())) {
                    throw error(path, "provider '" + p.name() + "' cannot fall back to itself");
                }
                if (!config.providerNames().contains(name)) {
                    throw error(path, "unknown provider '" + name + "'; expected one of: " + EngineConfig.names(config.providerNames()));
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
                findCycle(providers.indexOf(config.providerNamed(next)), path);
                path.removeLast();
            }
        }
    }

    private void unique(String section, List<String> names) {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < names.size(); i++) {
            if (!seen.add(names.get(i))) {
                throw error(section + "[" + i + "].name", "the name '" + names.get(i) + "' is used twice in " + section);
            }
        }
    }

    private ConfigException error(String path, String problem) {
        return config.errorAt(path, problem);
    }
}
