package dev.shelly.cli;

import dev.shelly.engine.Engine;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.ConfigLoader;
import dev.shelly.skills.Skill;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code shelly skills}: the skills the agents can load, from {@code .shelly/skills} and the
 * user's {@code ~/.shelly/skills} under it, with their description, the agents that have them
 * and what their {@code tools.yaml} brings.
 */
final class SkillsCommand extends Command {
    SkillsCommand(Terminal terminal) {
        super("skills", terminal);
    }

    @Override
    int run(Args args, Project project) {
        args.atMost(0);
        try (Engine engine = project.engine(false, Duration.ZERO)) {
            if (engine.skills().isEmpty()) {
                terminal.out().println("no skills in " + project.shellyDir().skillsDir()
                        + "; a skill is a folder there with a SKILL.md");
                return 0;
            }
            List<List<String>> rows = new ArrayList<>();
            for (Skill skill : engine.skills()) {
                List<String> agents = engine.config().agents().stream()
                        .filter(a -> a.skills() == null || a.skills().contains(skill.name()))
                        .map(AgentConfig::name).toList();
                rows.add(List.of(skill.name(), skill.description(),
                        (agents.isEmpty() ? "(no agent)" : "agents: " + String.join(", ", agents)) + brings(skill)));
            }
            Table.lines(rows).forEach(terminal.out()::println);
        }
        return 0;
    }

    /** What the skill's tools.yaml brings ({@code "; brings MCP server tracker, tool lint"}), or "". */
    private String brings(Skill skill) {
        if (skill.dir() == null) {
            return "";
        }
        ConfigLoader.SkillTools tools = ConfigLoader.loadSkillTools(skill.dir(), terminal.env()::get).orElse(null);
        if (tools == null || tools.isEmpty()) {
            return "";
        }
        List<String> parts = new ArrayList<>();
        tools.mcpServers().forEach(server -> parts.add("MCP server " + server.name()));
        tools.tools().forEach(tool -> parts.add("tool " + tool.name()));
        return "; brings " + String.join(", ", parts);
    }
}
