package dev.shelly.cli;

import dev.shelly.engine.Engine;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code shelly agents}: the agents of the project's and the user's settings ({@code config.yaml}
 * and {@code agents/*.md}), with their model and description; the entry
 * agent, which answers unless {@code --agent} names another, is marked {@code *}. Builds the
 * engine (so a configuration problem shows here too) without calling a model.
 */
final class AgentsCommand extends Command {
    AgentsCommand(Terminal terminal) {
        super("agents", terminal);
    }

    @Override
    int run(Args args, Project project) {
        args.atMost(0);
        try (Engine engine = project.engine(false, Duration.ZERO)) {
            EngineConfig config = engine.config();
            String entry = config.entryAgent().orElse("");
            List<List<String>> rows = new ArrayList<>();
            for (AgentConfig agent : config.agents()) {
                ProviderConfig provider = config.providerOf(agent);
                rows.add(List.of(agent.name() + (agent.name().equals(entry) ? " *" : ""),
                        provider.name() + " (" + provider.kind() + " " + config.modelOf(agent) + ")", agent.description()));
            }
            Table.lines(rows).forEach(terminal.out()::println);
            terminal.out().println(entry.isEmpty()
                    ? "no entry agent is configured: name one with entry_agent, or pick one with --agent NAME"
                    : "* answers in shelly chat and shelly run; --agent NAME picks another");
        }
        return 0;
    }
}
