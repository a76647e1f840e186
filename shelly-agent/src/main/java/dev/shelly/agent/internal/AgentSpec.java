package dev.shelly.agent.internal;

import dev.shelly.agent.AgentListener;
import dev.shelly.agent.Registry;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.agent.context.ContextPolicy;
import dev.shelly.agent.context.ContextStrategy;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.skills.Skill;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Internal, not API. What an agent is, as its builder left it: the agent keeps this and never
 * changes it, and the loop runs from it. Lists and sets are unmodifiable copies. The public
 * accessors of {@code dev.shelly.agent.Agent} document each field. Its name is its own; the
 * rest (texts and model included) is a value that agents built one after another with equal
 * settings share: the fresh workers a registry's factory makes for a fan-out keep one copy.
 */
public final class AgentSpec {
    private final String name;
    /** The rest: most agents share it with the agent built before them (see {@link #last}). */
    private final Settings settings;

    /**
     * What an agent holds besides its name: its texts, its model and its settings. The agent's
     * builder fills it a field at a time and never touches it again; a spec holds it through a
     * final field, and agents built one after another with equal settings share one. Filled a
     * field at a time rather than through a constructor of two dozen arguments, because a frame
     * that builds an agent and then runs it (a virtual thread's task) stays under every model
     * call, and a compiled frame is as large as the widest call and the most values it keeps
     * across calls.
     */
    public static final class Settings {
        /** What it does, as other agents see it. */
        public String description;
        /** Its detailed instructions. */
        public String instructions;
        /** Its project context. */
        public String context;
        /** The model it asks. */
        public Completer completer;
        /** The most model calls in one run. */
        public int maxIterations;
        /** How deep delegation may go below it. */
        public int maxDelegationDepth;
        /** Its skills. */
        public List<Skill> skills;
        /** The user's toolboxes. */
        public List<ToolBox> toolboxes;
        /** The grace set on the builder, or null when the run's context decides. */
        public Duration cancelGrace;
        /** How long one run may take, or null. */
        public Duration timeout;
        /** The most characters of text a tool result keeps. */
        public int maxToolResultChars;
        /** The tools whose call ends a run. */
        public Set<String> stopTools;
        /** Whether the prompt goes into an empty chat. */
        public boolean systemPromptInChat;
        /** The definition of {@code load_skill}, or null without skills. */
        public ToolDefinition skillTool;
        /** The registry set on the builder, or null. */
        public Registry registry;
        /** The only agents it may delegate to, or null for every other agent. */
        public Set<String> delegateTargets;
        /** The agent's listener. */
        public AgentListener listener;
        /** The agent's links, which its delegated children inherit. */
        public List<RunInterceptor> interceptors;
        /** The links around its own runs only. */
        public List<RunInterceptor> middleware;
        /** The options of every model call. */
        public ModelOptions options;
        /** The prices that turn usage into cost. */
        public ModelTable prices;
        /** How it keeps its model calls inside the window. */
        public ContextPolicy contextPolicy;
        /** The toolboxes runs search: the user's, then those of the context strategies. */
        public List<ToolBox> runToolboxes;
        /** Starts the tools a skill brings for a run, or null when the skills bring none. */
        public SkillStarter skillTools;
        /** How its {@code delegate} calls start their children (the agent's package spawns them). */
        public Children children;

        /** Makes settings for a builder to fill. */
        public Settings() {}

        /**
         * Equal settings: the same model (a completer equal to another may keep state of its
         * own), and equal everything else.
         */
        @Override
        public boolean equals(Object o) {
            return o instanceof Settings s && completer == s.completer && maxIterations == s.maxIterations
                    && maxDelegationDepth == s.maxDelegationDepth && maxToolResultChars == s.maxToolResultChars
                    && systemPromptInChat == s.systemPromptInChat && Objects.equals(description, s.description)
                    && Objects.equals(instructions, s.instructions) && Objects.equals(context, s.context)
                    && Objects.equals(skills, s.skills) && Objects.equals(toolboxes, s.toolboxes)
                    && Objects.equals(cancelGrace, s.cancelGrace) && Objects.equals(timeout, s.timeout)
                    && Objects.equals(stopTools, s.stopTools) && Objects.equals(skillTool, s.skillTool)
                    && Objects.equals(registry, s.registry) && Objects.equals(delegateTargets, s.delegateTargets)
                    && Objects.equals(listener, s.listener) && Objects.equals(interceptors, s.interceptors)
                    && Objects.equals(middleware, s.middleware) && Objects.equals(options, s.options)
                    && Objects.equals(prices, s.prices) && Objects.equals(contextPolicy, s.contextPolicy)
                    && Objects.equals(runToolboxes, s.runToolboxes) && Objects.equals(skillTools, s.skillTools)
                    && Objects.equals(children, s.children);
        }

        @Override
        public int hashCode() {
            return Objects.hash(description, instructions, context, System.identityHashCode(completer), maxIterations,
                    skills, toolboxes, stopTools, registry, listener, interceptors, middleware, options, contextPolicy);
        }
    }

    /**
     * The settings of the agent built last: an agent built with equal settings shares them, so
     * that the fresh workers of a fan-out hold one copy (an immutable value, so agents may share it).
     * Held weakly: the cache does not keep a dropped agent's registry, listener and links alive.
     */
    private static volatile WeakReference<Settings> last = new WeakReference<>(null);

    /**
     * Describes an agent.
     *
     * @param name the agent's name
     * @param made its settings, filled; not changed after this
     */
    public AgentSpec(String name, Settings made) {
        this.name = name;
        Settings known = last.get();
        if (made.equals(known)) {
            made = known;
        } else {
            last = new WeakReference<>(made);
        }
        this.settings = made;
    }

    /** {@return the name the builder set} */
    public String name() {
        return name;
    }

    /** {@return the description the builder set} */
    public String description() {
        return settings.description;
    }

    /** {@return the instructions the builder set} */
    public String instructions() {
        return settings.instructions;
    }

    /** {@return the context the builder set} */
    public String context() {
        return settings.context;
    }

    /** {@return the completer the builder set} */
    public Completer completer() {
        return settings.completer;
    }

    /** {@return how its {@code delegate} calls start their children} */
    public Children children() {
        return settings.children;
    }

    /** {@return the maxIterations the builder set} */
    public int maxIterations() {
        return settings.maxIterations;
    }

    /** {@return the maxDelegationDepth the builder set} */
    public int maxDelegationDepth() {
        return settings.maxDelegationDepth;
    }

    /** {@return the skills the builder set} */
    public List<Skill> skills() {
        return settings.skills;
    }

    /** {@return the toolboxes the builder set} */
    public List<ToolBox> toolboxes() {
        return settings.toolboxes;
    }

    /** {@return the cancelGrace the builder set} */
    public Duration cancelGrace() {
        return settings.cancelGrace;
    }

    /** {@return the timeout the builder set} */
    public Duration timeout() {
        return settings.timeout;
    }

    /** {@return the maxToolResultChars the builder set} */
    public int maxToolResultChars() {
        return settings.maxToolResultChars;
    }

    /** {@return the stopTools the builder set} */
    public Set<String> stopTools() {
        return settings.stopTools;
    }

    /** {@return the systemPromptInChat the builder set} */
    public boolean systemPromptInChat() {
        return settings.systemPromptInChat;
    }

    /** {@return the definition of {@code load_skill}, made from the skills, or null without skills} */
    public ToolDefinition skillTool() {
        return settings.skillTool;
    }

    /** {@return the registry the builder set} */
    public Registry registry() {
        return settings.registry;
    }

    /** {@return the delegateTargets the builder set} */
    public Set<String> delegateTargets() {
        return settings.delegateTargets;
    }

    /** {@return the listener the builder set} */
    public AgentListener listener() {
        return settings.listener;
    }

    /** {@return the interceptors the builder set} */
    public List<RunInterceptor> interceptors() {
        return settings.interceptors;
    }

    /** {@return the middleware the builder set} */
    public List<RunInterceptor> middleware() {
        return settings.middleware;
    }

    /** {@return the options of every model call: the builder's, with its prompt caching folded in} */
    public ModelOptions options() {
        return settings.options;
    }

    /** {@return the prices the builder set} */
    public ModelTable prices() {
        return settings.prices;
    }

    /** {@return the contextPolicy the builder set} */
    public ContextPolicy contextPolicy() {
        return settings.contextPolicy;
    }

    /** {@return the toolboxes runs search: the user's, then those of the context strategies} */
    public List<ToolBox> runToolboxes() {
        return settings.runToolboxes;
    }

    /** {@return what starts the tools a skill brings for a run, or null when the skills bring none} */
    public SkillStarter skillTools() {
        return settings.skillTools;
    }

    /** Starts the tools a skill brings for one run: the loop's view of {@code Agent.SkillTools}. */
    @FunctionalInterface
    public interface SkillStarter {
        /**
         * Starts a skill's tools; never throws.
         *
         * @param skill the skill
         * @param context the run's tool context
         * @return what was started
         */
        Brought start(Skill skill, ToolContext context);
    }

    /**
     * The tools started for one skill in one run.
     *
     * @param toolboxes the tools
     * @param problems what did not start, for the model
     * @param stop stops them, once, when the run ends
     */
    public record Brought(List<ToolBox> toolboxes, List<String> problems, Runnable stop) {}

    /** The iteration limit that means no limit. */
    public static final int UNLIMITED = Integer.MAX_VALUE;

    /** The names of the built-in tools, which no toolbox may use. */
    public static final Set<String> BUILTIN_TOOLS = Set.of(SkillTool.NAME, Orchestration.LIST_AGENTS,
            Orchestration.DELEGATE);

    /**
     * What the model is told about {@code load_skill} for these skills.
     *
     * @param skills the skills, not empty
     * @return the definition
     */
    public static ToolDefinition skillTool(List<Skill> skills) {
        return SkillTool.definition(skills);
    }

    /**
     * Says which toolbox holds a tool named like a built-in, or returns null when none does.
     * Toolboxes may change after the agent is built, so a run checks again (three look-ups per
     * toolbox).
     *
     * @param agent the agent's name, for the message
     * @param boxes the toolboxes
     * @return what is wrong, or null
     */
    public static String builtinClash(String agent, List<ToolBox> boxes) {
        for (int i = 0; i < boxes.size(); i++) {
            ToolBox box = boxes.get(i);
            for (String tool : BUILTIN_TOOLS) {
                if (box.contains(tool)) {
                    return "toolbox " + (i + 1) + " of agent '" + agent + "' holds a tool named '" + tool
                            + "', the name of a built-in tool (" + String.join(", ", new TreeSet<>(BUILTIN_TOOLS))
                            + "); rename the tool";
                }
            }
        }
        return null;
    }

    /**
     * The toolboxes an agent's runs search: its own, then those of its context strategies; checks
     * that none holds a tool named like a built-in, and that no strategy offers a tool of the
     * same name as one of them.
     *
     * @param agent the agent's name, for the messages
     * @param toolboxes its own toolboxes
     * @param policy its context policy
     * @return the toolboxes, in the order searched
     * @throws IllegalArgumentException naming the clash
     */
    public static List<ToolBox> runToolboxes(String agent, List<ToolBox> toolboxes, ContextPolicy policy) {
        String clash = builtinClash(agent, toolboxes);
        if (clash != null) {
            throw new IllegalArgumentException(clash);
        }
        List<ToolBox> all = new ArrayList<>(toolboxes);
        for (ContextStrategy strategy : policy.strategies()) {
            Optional<ToolBox> box = strategy.tools();
            if (box.isEmpty()) {
                continue;
            }
            for (ToolDefinition d : box.get().definitions()) {
                for (int i = 0; i < all.size(); i++) {
                    if (all.get(i).contains(d.name())) {
                        throw new IllegalArgumentException("toolbox " + (i + 1) + " of agent '" + agent + "' holds a tool "
                                + "named '" + d.name() + "', which the context strategy '" + strategy.name()
                                + "' offers; rename the tool");
                    }
                }
            }
            all.add(box.get());
        }
        return List.copyOf(all);
    }

    /**
     * {@return whether the agent may delegate at the top of a delegation tree} It has a registry
     * holding other agents it may delegate to, and a delegation limit above 0.
     */
    public boolean canDelegate() {
        return registry() != null && maxDelegationDepth() > 0 && !targets(registry()).isEmpty();
    }

    /**
     * The system prompt the agent writes when it runs at the top of a delegation tree.
     *
     * @return the prompt's text
     */
    public String systemPrompt() {
        return SystemPrompt.build(name, description(), instructions(), context(), skills(),
                canDelegate() ? targets(registry()) : List.of());
    }

    /**
     * The agents of a registry this agent may delegate to: the others, or those of its
     * {@code delegateTargets} the registry holds; sorted by name.
     */
    List<Registry.Entry> targets(Registry registry) {
        List<Registry.Entry> all = registry.list();
        List<Registry.Entry> others = new ArrayList<>(all.size());
        for (Registry.Entry e : all) {
            if (!e.name().equals(name) && (delegateTargets() == null || delegateTargets().contains(e.name()))) {
                others.add(e);
            }
        }
        return Collections.unmodifiableList(others);
    }
}
