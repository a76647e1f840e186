package dev.shelly.agent;

import dev.shelly.agent.AgentException.AgentTimeoutException;
import dev.shelly.agent.AgentException.MaxIterationsException;
import dev.shelly.agent.context.ContextPolicy;
import dev.shelly.agent.internal.AgentSpec;
import dev.shelly.agent.internal.Children;
import dev.shelly.chats.Chat;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelOptions.CacheHints;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.skills.Skill;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolResults;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The settings of an agent's builder, kept out of {@code Agent.java} so that the agent's file
 * holds the agent. Every setter is public on the builder, which is the only subclass.
 *
 * @param <B> the builder
 */
abstract class AgentSettings<B extends AgentSettings<B>> {
    /** The most model calls in one run unless set. */
    static final int DEFAULT_MAX_ITERATIONS = 25;
    /** How deep delegation may go unless set. */
    static final int DEFAULT_MAX_DELEGATION_DEPTH = 1;

    final String name;
    String description = "";
    String instructions = "";
    String context = "";
    Completer completer;
    int maxIterations = DEFAULT_MAX_ITERATIONS;
    int maxDelegationDepth = DEFAULT_MAX_DELEGATION_DEPTH;
    // The lists and the set are made at their first addition: most agents add nothing to most of them.
    List<Skill> skills = List.of();
    List<RunInterceptor> middleware = List.of();
    List<ToolBox> toolboxes = List.of();
    Duration cancelGrace;
    Duration timeout;
    List<RunInterceptor> interceptors = List.of();
    ModelOptions options = ModelOptions.NONE;
    boolean promptCaching = true;
    ModelTable prices;
    int maxToolResultChars = ToolResults.DEFAULT_MAX_CHARS;
    Set<String> stopTools = Set.of();
    boolean systemPromptInChat = true;
    Chat chat;
    Registry registry;
    Set<String> delegateTargets;
    AgentListener listener = AgentListener.NONE;
    ContextPolicy contextPolicy = ContextPolicy.NONE;
    Agent.SkillTools skillTools = Agent.SkillTools.NONE;

    AgentSettings(String name) {
        String invalid = Registry.invalidName(name);
        if (invalid != null) {
            throw new IllegalArgumentException(invalid);
        }
        this.name = name;
    }

    /**
     * What the agent does: the second half of the system prompt's first line, and what
     * other agents are told about it.
     *
     * @param value the description
     * @return this builder
     */
    public B description(String value) {
        this.description = requireText(value, "description");
        return self();
    }

    /**
     * Detailed instructions: the system prompt's {@code ## Instructions} section.
     *
     * @param value the instructions
     * @return this builder
     */
    public B instructions(String value) {
        this.instructions = requireText(value, "instructions");
        return self();
    }

    /**
     * Project context: the system prompt's {@code ## Project Context} section.
     *
     * @param value the context
     * @return this builder
     */
    public B context(String value) {
        this.context = requireText(value, "context");
        return self();
    }

    /**
     * The model.
     *
     * @param value the completer
     * @return this builder
     */
    public B completer(Completer value) {
        if (value == null) {
            throw new IllegalArgumentException("Agent '" + name + "' completer must not be null");
        }
        this.completer = value;
        return self();
    }

    /**
     * The maximum number of model calls in one run; {@link Agent#DEFAULT_MAX_ITERATIONS}
     * unless set. A run that reaches it without a final answer fails with a
     * {@link MaxIterationsException}. {@link Agent#UNLIMITED} removes the limit.
     *
     * @param value the limit: at least 1, or {@link Agent#UNLIMITED}
     * @return this builder
     * @throws IllegalArgumentException when the value is below 1
     */
    public B maxIterations(int value) {
        if (value < 1) {
            throw new IllegalArgumentException("Agent '" + name + "' maxIterations must be at least 1, was " + value
                    + "; use Agent.UNLIMITED for no limit");
        }
        this.maxIterations = value;
        return self();
    }

    /**
     * How deep the delegation tree may grow below this agent;
     * {@link Agent#DEFAULT_MAX_DELEGATION_DEPTH} unless set, 0 means the agent cannot
     * delegate. Delegation needs a {@linkplain #registry(Registry) registry} too. See
     * {@link Agent#maxDelegationDepth()}.
     *
     * @param value the limit
     * @return this builder
     */
    public B maxDelegationDepth(int value) {
        if (value < 0) {
            throw new IllegalArgumentException(
                    "Agent '" + name + "' maxDelegationDepth must not be negative, was " + value);
        }
        this.maxDelegationDepth = value;
        return self();
    }

    /**
     * Adds skills: shown in the system prompt and loadable with {@code load_skill}.
     *
     * @param more the skills
     * @return this builder
     * @throws IllegalArgumentException when two skills share a name
     */
    public B skills(List<Skill> more) {
        if (more == null) {
            throw new IllegalArgumentException("Agent '" + name + "' skills must not be null");
        }
        for (Skill s : more) {
            if (s == null) {
                throw new IllegalArgumentException("Agent '" + name + "' skills must not hold null");
            }
            for (Skill known : skills) {
                if (known.name().equals(s.name())) {
                    throw new IllegalArgumentException("Agent '" + name + "' has two skills named '" + s.name() + "'");
                }
            }
            skills = growing(skills);
            skills.add(s);
        }
        return self();
    }

    /**
     * Starts the tools the agent's skills bring (see {@link Agent.SkillTools}): per run, when a
     * skill is loaded, stopped when the run ends. None unless set.
     *
     * @param value starts a skill's tools
     * @return this builder
     */
    public B skillTools(Agent.SkillTools value) {
        if (value == null) {
            throw new IllegalArgumentException("Agent '" + name + "' skillTools must not be null");
        }
        this.skillTools = value;
        return self();
    }

    /**
     * Adds middleware: links around this agent's own runs, after the context's links and the
     * agent's {@linkplain #interceptors(RunInterceptor...) interceptors}, the first added
     * outermost (see {@link RunInterceptor} for the whole order). Delegated children do not
     * inherit them. The
     * common ones are {@link RunInterceptor#outputGuardrail}, {@link RunInterceptor#recovery} and
     * {@link RunInterceptor#logging}.
     *
     * @param more the links
     * @return this builder
     */
    public B middleware(RunInterceptor... more) {
        List<RunInterceptor> added = List.of(requireAll(more, "middleware"));
        middleware = growing(middleware);
        middleware.addAll(added);
        return self();
    }

    /**
     * Stops a run that takes longer than a limit: the run (its links included) works on a
     * virtual thread of its own; at the deadline that thread is interrupted (so the agent stops
     * its model call and tools and answers every open tool call with a cancelled result), and
     * the run fails with an {@link AgentTimeoutException} once it has stopped, or after the run's
     * {@linkplain RunContext#cancelGrace() grace} when it ignores the interrupt; a run that still
     * succeeds within the grace returns its reply. Interrupting the caller cancels the run the
     * same way. No limit unless set; delegated children do not inherit it.
     *
     * @param limit how long one run may take; positive
     * @return this builder
     */
    public B timeout(Duration limit) {
        if (limit == null || limit.isNegative() || limit.isZero()) {
            throw new IllegalArgumentException("Agent '" + name + "' timeout must be positive, was " + limit);
        }
        this.timeout = limit;
        return self();
    }

    /**
     * Adds toolboxes; a tool name is looked up in the order they were added.
     *
     * @param more the toolboxes
     * @return this builder
     */
    public B toolboxes(ToolBox... more) {
        for (ToolBox t : requireAll(more, "toolboxes")) {
            toolboxes = growing(toolboxes);
            toolboxes.add(t);
        }
        return self();
    }

    /**
     * The registry to delegate through: while the agent {@linkplain Agent#canDelegate() can
     * delegate} it is offered {@code list_agents} and {@code delegate} and told about the
     * registry's other agents.
     *
     * @param value the registry
     * @return this builder
     */
    public B registry(Registry value) {
        if (value == null) {
            throw new IllegalArgumentException("Agent '" + name + "' registry must not be null");
        }
        this.registry = value;
        return self();
    }

    /**
     * The only agents of the registry this agent may delegate to; by default every other agent.
     * It is then told about these alone (the system prompt's {@code ## Available Agents} and
     * {@code list_agents}), and a {@code delegate} to another agent is refused, the model reading
     * why. Names the registry does not hold are left out when a run looks them up.
     *
     * @param names the agents' names; replaces those given before; none: the agent delegates to nobody
     * @return this builder
     */
    public B delegateTargets(String... names) {
        Set<String> targets = new LinkedHashSet<>();
        for (String n : requireAll(names, "delegateTargets")) {
            if (n.isBlank()) {
                throw new IllegalArgumentException("Agent '" + name + "' delegateTargets must not hold a blank name");
            }
            targets.add(n);
        }
        this.delegateTargets = Collections.unmodifiableSet(targets);
        return self();
    }

    /**
     * The chat to work on, for example one shared with other agents; by default a new one.
     *
     * @param value the chat
     * @return this builder
     */
    public B chat(Chat value) {
        if (value == null) {
            throw new IllegalArgumentException("Agent '" + name + "' chat must not be null");
        }
        this.chat = value;
        return self();
    }

    /**
     * The listener for this agent's events (and, by inheritance, its children's).
     *
     * @param value the listener
     * @return this builder
     */
    public B listener(AgentListener value) {
        if (value == null) {
            throw new IllegalArgumentException("Agent '" + name + "' listener must not be null");
        }
        this.listener = value;
        return self();
    }

    /**
     * How long cancelled tool calls and delegated children may take to stop before the
     * agent abandons them (their results then say they were cancelled). Unless set, the run's
     * context decides ({@link RunContext#cancelGrace()}, by default
     * {@link Agent#DEFAULT_CANCEL_GRACE}). Well-behaved tools stop at once.
     *
     * @param value the grace
     * @return this builder
     */
    public B cancelGrace(Duration value) {
        if (value == null || value.isNegative()) {
            throw new IllegalArgumentException("Agent '" + name + "' cancelGrace must not be null or negative");
        }
        this.cancelGrace = value;
        return self();
    }

    /**
     * The most characters of text one tool result keeps; the rest is cut, and a note the
     * model reads says how much and how to ask for less (see {@link ToolResults}). A tool's
     * own limit ({@link dev.shelly.tools.Tool#withMaxResultChars}) wins. Default
     * {@link ToolResults#DEFAULT_MAX_CHARS}.
     *
     * @param value the limit; at least 1
     * @return this builder
     */
    public B maxToolResultChars(int value) {
        if (value < 1) {
            throw new IllegalArgumentException("Agent '" + name + "' maxToolResultChars must be at least 1, was " + value);
        }
        this.maxToolResultChars = value;
        return self();
    }

    /**
     * Tools whose call ends the run: when a reply calls one of them, the turn's tool calls
     * run as usual, their results are appended, and the run ends with that tool message as
     * its final message instead of asking the model again. A hand-off group uses this for its
     * {@code transfer_to_*} tools; it suits any tool whose result is the answer.
     *
     * @param names the tool names; adds to those given before
     * @return this builder
     */
    public B stopAtTools(String... names) {
        for (String n : requireAll(names, "stopAtTools")) {
            if (n.isBlank()) {
                throw new IllegalArgumentException("Agent '" + name + "' stopAtTools must not hold a blank name");
            }
            if (!(stopTools instanceof LinkedHashSet)) {
                stopTools = new LinkedHashSet<>(stopTools);
            }
            stopTools.add(n);
        }
        return self();
    }

    /**
     * Whether the agent writes its system prompt into an empty chat (true, the default), or
     * keeps it out of the chat and puts it in front of the chat's messages on every model
     * call (false). The second suits agents that take turns on one shared chat, as in a
     * hand-off group: each speaks with its own instructions, and the shared chat holds only
     * the conversation (any system message it has follows the agent's prompt).
     *
     * @param value whether the prompt goes into the chat
     * @return this builder
     */
    public B systemPromptInChat(boolean value) {
        this.systemPromptInChat = value;
        return self();
    }

    /**
     * Adds links to the interception chain of the agent's runs: they follow the links of the
     * run's context, in the order given, and reach the agent's delegated children. See
     * {@link RunInterceptor}; its static methods make hooks before and after model and tool
     * calls.
     *
     * @param more the links
     * @return this builder
     */
    public B interceptors(RunInterceptor... more) {
        List<RunInterceptor> added = List.of(requireAll(more, "interceptors"));
        interceptors = growing(interceptors);
        interceptors.addAll(added);
        return self();
    }

    /**
     * The options of every model call (tool choice, response format, max tokens,
     * temperature, ...); what is not set here falls back to the provider's defaults. A cache
     * set here wins over {@link #promptCaching(boolean)}.
     *
     * @param value the options
     * @return this builder
     */
    public B options(ModelOptions value) {
        if (value == null) {
            throw new IllegalArgumentException("Agent '" + name + "' options must not be null; use ModelOptions.NONE");
        }
        this.options = value;
        return self();
    }

    /**
     * Whether the agent asks for prompt caching ({@link CacheHints#ON}: the system prompt
     * and tools, and the conversation's tail) on every model call; on by default. A provider
     * without explicit caching ignores the hints. {@link #options(ModelOptions)} with a cache set wins.
     *
     * @param value false to send no cache hints
     * @return this builder
     */
    public B promptCaching(boolean value) {
        this.promptCaching = value;
        return self();
    }

    /**
     * The prices that turn usage into cost ({@link RunContext#cost()},
     * {@link AgentEvent.AgentFinished#cost()}); {@link ModelTable#defaults()} unless set.
     *
     * @param value the price table
     * @return this builder
     */
    public B prices(ModelTable value) {
        if (value == null) {
            throw new IllegalArgumentException("Agent '" + name + "' prices must not be null; use ModelTable.empty()");
        }
        this.prices = value;
        return self();
    }

    /**
     * How the agent keeps its model calls inside the model's window: the strategies that
     * shape the model's view of the chat before every call (compaction, trimming, offloading,
     * budgets, ...). {@link ContextPolicy#NONE} (the default) sends the whole chat. The
     * strategies act before the links of the interception chain see a request, on the view only: the chat keeps every
     * message plus the summaries and notes they add. A strategy's tools (such as
     * {@code recall}) are offered after the toolboxes'.
     *
     * @param value the policy
     * @return this builder
     */
    public B contextPolicy(ContextPolicy value) {
        if (value == null) {
            throw new IllegalArgumentException("Agent '" + name + "' contextPolicy must not be null; use ContextPolicy.NONE");
        }
        this.contextPolicy = value;
        return self();
    }

    private String requireText(String value, String field) {
        if (value == null) {
            throw new IllegalArgumentException("Agent '" + name + "' " + field + " must not be null");
        }
        return value;
    }

    private <T> T[] requireAll(T[] values, String field) {
        if (values == null) {
            throw new IllegalArgumentException("Agent '" + name + "' " + field + " must not be null");
        }
        for (T v : values) {
            if (v == null) {
                throw new IllegalArgumentException("Agent '" + name + "' " + field + " must not hold null");
            }
        }
        return values;
    }

    /** Checks the settings before a build; the agent checks its tools. */
    void validate() {
        if (completer == null) {
            throw new IllegalArgumentException("Agent '" + name + "' needs a completer");
        }
        if (prices == null) {
            prices = ModelTable.defaults();
        }
    }

    /** The options every model call of the agent carries: prompt caching folded into those set. */
    ModelOptions callOptions() {
        if (!promptCaching || options.cache() != null) {
            return options;
        }
        // Most agents keep the default options: one shared value for all of them.
        return options == ModelOptions.NONE ? CACHING : options.withCache(CacheHints.ON);
    }

    /**
     * The settings of the agent being built, filled a field at a time (see
     * {@link AgentSpec.Settings}: a task that builds an agent and then runs it keeps this frame).
     */
    AgentSpec.Settings settings(AgentSpec.SkillStarter skillStarter, Children children) {
        AgentSpec.Settings s = new AgentSpec.Settings();
        s.description = description;
        s.instructions = instructions;
        s.context = context;
        s.completer = completer;
        s.maxIterations = maxIterations;
        s.maxDelegationDepth = maxDelegationDepth;
        s.skills = List.copyOf(skills);
        s.toolboxes = List.copyOf(toolboxes);
        s.cancelGrace = cancelGrace;
        s.timeout = timeout;
        s.maxToolResultChars = maxToolResultChars;
        s.stopTools = Set.copyOf(stopTools);
        s.systemPromptInChat = systemPromptInChat;
        s.skillTool = s.skills.isEmpty() ? null : AgentSpec.skillTool(s.skills);
        s.registry = registry;
        s.delegateTargets = delegateTargets;
        s.listener = listener;
        s.interceptors = List.copyOf(interceptors);
        s.middleware = List.copyOf(middleware);
        s.options = callOptions();
        s.prices = prices;
        s.contextPolicy = contextPolicy;
        s.runToolboxes = AgentSpec.runToolboxes(name, toolboxes, contextPolicy);
        s.skillTools = skillStarter;
        s.children = children;
        return s;
    }

    /** The default options with prompt caching on. */
    private static final ModelOptions CACHING = ModelOptions.NONE.withCache(CacheHints.ON);

    /** A list that takes additions: the list itself once it is one, else a copy of the empty one it starts as. */
    private static <T> List<T> growing(List<T> list) {
        return list instanceof ArrayList<T> a ? a : new ArrayList<>(list);
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }
}
