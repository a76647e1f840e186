package dev.shelly.agent;

import dev.shelly.agent.context.ContextPolicy;
import dev.shelly.agent.internal.AgentSpec;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.skills.Skill;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolResults;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What an agent is made of, as its builder left it: the accessors of an {@link Agent}'s model,
 * prompt, tools, limits and policies, kept out of {@code Agent.java} so that the agent's file
 * holds its runs and how it connects to others (its registry, its links). Every accessor is
 * public on the agent, the only subclass. Immutable.
 */
abstract class AgentDefinition {
    /** Everything the builder set, as the agent keeps it. */
    final AgentSpec spec;

    AgentDefinition(AgentSpec spec) {
        this.spec = spec;
    }

    /**
     * {@return the prompt's text} The system prompt this agent writes on an empty chat when it
     * runs at the top of a delegation tree (an agent that keeps its prompt out of the chat, or
     * whose chat holds messages but no opening system message, puts it in front of the chat on
     * every model call instead): {@code You are {name}. {description}}, then the sections
     * {@code ## Instructions}, {@code ## Project Context}, {@code ## Skills} (a skill with a
     * description listed by it under a line telling the model to {@code load_skill} it first, one
     * without inlined in full) and {@code ## Available Agents} ({@code - **{name}**: {description}}
     * for the agents it may delegate to (the registry's others, or its delegate targets), sorted by name, only when the agent
     * {@linkplain #canDelegate() can delegate}). Only non-empty sections appear, every text
     * stripped of surrounding white space; the shelly-agent README shows the whole template.
     */
    public String systemPrompt() {
        return spec.systemPrompt();
    }

    /**
     * Whether this agent may delegate when it runs at the top of a delegation tree: it has a
     * registry holding other agents, and a delegation limit above 0. Only then is it offered
     * {@code list_agents} and {@code delegate} and told about the other agents. Inside a run the
     * run's depth and the limits of the agents above count too (see {@link RunContext}).
     *
     * @return true when the agent can delegate
     */
    public boolean canDelegate() {
        return spec.canDelegate();
    }

    /**
     * The most characters of text a tool result keeps, for tools without a limit of their own.
     *
     * @return the limit; {@link ToolResults#DEFAULT_MAX_CHARS} unless the builder set one
     */
    public int maxToolResultChars() {
        return spec.maxToolResultChars();
    }

    /** {@return the description; may be empty} What the agent does, as other agents see it. */
    public String description() {
        return spec.description();
    }

    /** {@return the instructions; may be empty} The agent's detailed instructions. */
    public String instructions() {
        return spec.instructions();
    }

    /** {@return the completer} The model the agent asks. */
    public Completer completer() {
        return spec.completer();
    }

    /** {@return the context; may be empty} The project context given to the agent. */
    public String context() {
        return spec.context();
    }

    /**
     * {@return the limit, at least 1} The maximum number of model calls in one run: {@value Agent#DEFAULT_MAX_ITERATIONS}
     * unless set, {@link Agent#UNLIMITED} for no limit.
     */
    public int maxIterations() {
        return spec.maxIterations();
    }

    /**
     * {@return the limit} How deep the delegation tree below a top-level agent may grow: an agent at depth {@code d}
     * may delegate while {@code d} is below this limit (and below the limit of every agent above it). {@value
     * Agent#DEFAULT_MAX_DELEGATION_DEPTH} unless set; 0 means the agent cannot delegate.
     */
    public int maxDelegationDepth() {
        return spec.maxDelegationDepth();
    }

    /** {@return the skills} The skills the agent knows. */
    public List<Skill> skills() {
        return spec.skills();
    }

    /** {@return the toolboxes} The user's toolboxes (the built-in tools not included). */
    public List<ToolBox> toolboxes() {
        return spec.toolboxes();
    }

    /**
     * {@return the names, or empty when the agent may delegate to every other agent} The only agents of its
     * registry the agent may delegate to; see {@link Agent.Builder#delegateTargets}.
     */
    public Optional<Set<String>> delegateTargets() {
        return Optional.ofNullable(spec.delegateTargets());
    }

    /**
     * {@return the tool names; empty by default} The tools whose call ends a run once the turn's results are in the
     * chat.
     */
    public Set<String> stopTools() {
        return spec.stopTools();
    }

    /**
     * {@return true when the prompt goes into the chat} Whether the agent writes its system prompt into an empty chat
     * (true, the default) or puts it in front of the chat on every model call (false).
     */
    public boolean systemPromptInChat() {
        return spec.systemPromptInChat();
    }

    /**
     * {@return the listener, {@link AgentListener#NONE} when none is set} The listener that observes this agent's
     * events (and, through each run's context, its children's).
     */
    public AgentListener listener() {
        return spec.listener();
    }

    /**
     * {@return the limit, or empty when there is none} How long one run of the agent may take; see
     * {@link Agent.Builder#timeout}.
     */
    public Optional<Duration> timeout() {
        return Optional.ofNullable(spec.timeout());
    }

    /**
     * {@return the options} The options of every model call the agent makes (the provider's defaults fill what is not
     * set), prompt caching included unless turned off.
     */
    public ModelOptions options() {
        return spec.options();
    }

    /**
     * {@return the policy; {@link ContextPolicy#NONE} unless set} How the agent keeps its model calls inside the
     * model's window.
     */
    public ContextPolicy contextPolicy() {
        return spec.contextPolicy();
    }

    /**
     * {@return the price table; {@link ModelTable#defaults()} unless set} The prices that turn the agent's usage into
     * cost.
     */
    public ModelTable prices() {
        return spec.prices();
    }
}
