package dev.shelly.engine;

import dev.shelly.agent.Agent;
import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.AskUser;
import dev.shelly.agent.Registry;
import dev.shelly.agent.context.ContextPolicy;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.skills.Skill;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * Builds the configured agents: each agent's completer (its provider's, fallbacks included),
 * toolboxes, skills, project context, limits, context policy and prices. Registers every agent
 * as a factory in the engine's {@link Registry}, so that delegation spawns a fresh agent. An agent holds no conversation: a session runs its turns on
 * its own {@link dev.shelly.agent.Conversation}.
 */
final class AgentFactory {
    private final Parts parts;
    private final EngineConfig config;
    private final Registry registry = new Registry();

    /**
     * What every agent is built from.
     *
     * @param config the checked configuration
     * @param dir the {@code .shelly/} folder, or null
     * @param completers each provider's completer, fallbacks included, by name
     * @param ownModels the completers of agents with a model of their own, by agent name
     * @param toolboxes the toolboxes agents may name
     * @param coding the coding toolboxes, by agent name
     * @param human who may ask the user
     * @param skills every skill loaded
     * @param skillTools starts the tools the skills' folders bring
     * @param projectContext the project context
     * @param prices the price table
     * @param windows the context windows
     * @param events the bus an agent handed to the application publishes to
     */
    record Parts(EngineConfig config, ShellyDir dir, Map<String, Completer> completers,
            Map<String, Completer> ownModels, Map<String, Supplier<ToolBox>> toolboxes, Map<String, CodingSupport.Coding> coding, HumanInTheLoop human,
            List<Skill> skills, Agent.SkillTools skillTools, String projectContext, ModelTable prices, ModelTable windows,
            EventBus<AgentEvent> events) {}

    AgentFactory(Parts parts) {
        this.parts = parts;
        this.config = parts.config();
        for (AgentConfig agent : config.agents()) {
            registry.register(agent.name(), agent.description(), () -> build(agent, false));
        }
    }

    Registry registry() {
        return registry;
    }

    List<Skill> skills() {
        return parts.skills();
    }

    String projectContext() {
        return parts.projectContext();
    }

    ModelTable prices() {
        return parts.prices();
    }

    ModelTable windows() {
        return parts.windows();
    }

    /**
     * A configured agent, as a session runs it: it publishes through its turn's run context.
     *
     * @throws IllegalArgumentException naming the configured agents when there is no such agent
     */
    Agent agent(String name) {
        return build(config(name), false);
    }

    /** A configured agent handed to the application: it publishes to the engine's bus itself. */
    Agent publishing(String name) {
        return build(config(name), true);
    }

    /** Whether an agent of that name is configured. */
    boolean contains(String name) {
        return registry.contains(name);
    }

    /** The configured agents' names, sorted, for messages. */
    String names() {
        TreeSet<String> names = new TreeSet<>();
        config.agents().forEach(a -> names.add(a.name()));
        return String.join(", ", names);
    }

    private AgentConfig config(String name) {
        for (AgentConfig a : config.agents()) {
            if (a.name().equals(name)) {
                return a;
            }
        }
        throw new IllegalArgumentException("no agent '" + name + "'; configured agents: " + names());
    }

    /**
     * An agent of the configuration. Only an agent handed to the application publishes to the bus
     * itself: a session's agent publishes through its turn's run context, and an agent the
     * registry spawns for a delegation inherits its parent run's listener, so every event reaches
     * the bus once.
     */
    private Agent build(AgentConfig a, boolean publishes) {
        Agent.Builder b = Agent.builder(a.name())
                .description(a.description())
                .instructions(a.instructions())
                .context(parts.projectContext())
                .completer(parts.ownModels().getOrDefault(a.name(), parts.completers().get(config.providerOf(a).name())))
                .skills(skillsOf(a))
                .skillTools(parts.skillTools())
                .registry(registry)
                .prices(parts.prices());
        if (publishes) {
            b.listener(parts.events()::publish);
        }
        a.applyTo(b);
        if (a.delegateTargets() != null) {
            b.delegateTargets(a.delegateTargets().toArray(String[]::new));
        }
        if (a.context() != null) {
            b.contextPolicy(contextPolicy(a));
        }
        List<ToolBox> boxes = new ArrayList<>();
        for (AgentConfig.Toolbox ref : a.toolboxes()) {
            boxes.add(select(parts.toolboxes().get(ref.name()).get(), ref));
        }
        CodingSupport.Coding code = parts.coding().get(a.name());
        if (code != null) {
            boxes.add(code.toolBox());
        }
        if (parts.human().asksUser(a.name())) {
            boxes.add(AskUser.toolbox());
        }
        return b.toolboxes(boxes.toArray(ToolBox[]::new)).build();
    }

    /**
     * An agent's context policy from its {@code context:} section: its window (else the table's
     * for its provider's model), its summariser, and the strategies; offloaded results go to
     * {@code .shelly/offload} in a project.
     */
    private ContextPolicy contextPolicy(AgentConfig a) {
        AgentConfig.Context c = a.context();
        ContextPolicy.Builder p = ContextPolicy.builder().windows(parts.windows());
        if (c.window() != null) {
            p.window(c.window());
        } else {
            parts.windows().window(config.modelOf(a)).ifPresent(w -> p.window(w.tokens()));
        }
        if (c.summarizer() != null) {
            p.summarizer(parts.completers().get(c.summarizer()));
        }
        Path project = parts.dir() == null ? null : parts.dir().projectDir();
        Path offload = parts.dir() == null ? null : parts.dir().root().resolve("offload");
        return p.strategies(c.strategies(offload, project)).build();
    }

    private List<Skill> skillsOf(AgentConfig a) {
        if (a.skills() == null) {
            return parts.skills();
        }
        List<Skill> chosen = new ArrayList<>();
        for (Skill s : parts.skills()) {
            if (a.skills().contains(s.name())) {
                chosen.add(s);
            }
        }
        return chosen;
    }

    private static ToolBox select(ToolBox box, AgentConfig.Toolbox ref) {
        if (ref.tools().isEmpty()) {
            return box;
        }
        List<Tool> chosen = new ArrayList<>();
        for (String name : ref.tools()) {
            box.get(name).ifPresent(chosen::add);
        }
        return ToolBox.of(chosen.toArray(Tool[]::new));
    }
}
