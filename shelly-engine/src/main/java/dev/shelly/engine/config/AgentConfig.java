package dev.shelly.engine.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import dev.shelly.agent.Agent;
import dev.shelly.agent.ToolPolicy;
import dev.shelly.agent.context.ContextStrategy;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * An agent the engine registers: who it is, which provider answers for it, which toolboxes and
 * skills it has, and its limits.
 *
 * @param name the agent's unique name
 * @param description one line saying what it does (other agents see it)
 * @param instructions its instructions (the system prompt's Instructions section)
 * @param provider the name of a configured provider, or null when exactly one is configured
 * @param model the model this agent asks its provider for, or null for the provider's {@code model}
 * @param toolboxes the toolboxes it uses, in lookup order
 * @param skills the names of the skills it knows, or null for every skill the engine loaded
 * @param delegateTargets the only agents it may delegate to, or null for every other agent
 * @param options its limits; every one left out takes the agent default
 * @param promptCaching whether the agent's requests carry prompt-cache hints, or null for the
 *     agent default (on)
 * @param context how its model calls stay inside the model's window (the {@code context:}
 *     section), or null to send the whole chat
 * @param approval its tool policy and whether it may ask the user (the {@code approval:}
 *     section), or null for the engine's default policy
 * @param coding its coding toolbox (the {@code coding:} section), or null for none
 */
public record AgentConfig(String name, String description, String instructions, String provider, String model,
        List<Toolbox> toolboxes, List<String> skills, List<String> delegateTargets, Options options,
        Boolean promptCaching, Context context, Approval approval, Coding coding) {

    /** Validates and copies. */
    public AgentConfig {
        Fields.required(name, "name");
        description = description == null ? "" : description.strip();
        instructions = instructions == null ? "" : instructions.strip();
        Fields.notBlank(provider, "provider");
        Fields.notBlank(model, "model");
        toolboxes = toolboxes == null ? List.of() : List.copyOf(toolboxes);
        skills = Fields.names(skills, "skills");
        delegateTargets = Fields.names(delegateTargets, "delegate_targets");
        options = options == null ? Options.DEFAULT : options;
    }

    /**
     * An agent without a coding toolbox.
     *
     * @param name the agent's unique name
     * @param description one line saying what it does
     * @param instructions its instructions
     * @param provider a configured provider, or null
     * @param toolboxes its toolboxes
     * @param skills its skills, or null for all
     * @param options its limits
     * @param promptCaching whether requests carry cache hints, or null for the default
     * @param approval its tool policy, or null
     */
    public AgentConfig(String name, String description, String instructions, String provider,
            List<Toolbox> toolboxes, List<String> skills, Options options, Boolean promptCaching,
            Approval approval) {
        this(name, description, instructions, provider, null, toolboxes, skills, null, options, promptCaching, null,
                approval, null);
    }

    /**
     * An agent's limits: the {@code options:} section of an agent.
     *
     * @param maxIterations the ReAct loop limit (at least 1, {@link Agent#UNLIMITED} for none;
     *     {@code unlimited} in {@code config.yaml}), or null for the agent default
     *     ({@value Agent#DEFAULT_MAX_ITERATIONS})
     * @param maxDelegationDepth how deep it may delegate (0: not at all), or null for the agent
     *     default ({@value Agent#DEFAULT_MAX_DELEGATION_DEPTH})
     * @param maxToolResultChars the most characters of text a tool result keeps, or null for
     *     the agent default (100,000)
     */
    public record Options(@JsonDeserialize(using = Bindings.Iterations.class) Integer maxIterations,
            Integer maxDelegationDepth, Integer maxToolResultChars) {

        /** Every limit at the agent default. */
        public static final Options DEFAULT = new Options(null, null, null);

        /** Validates the limits. */
        public Options {
            if (maxIterations != null && maxIterations != Agent.UNLIMITED && maxIterations < 1) {
                throw new InvalidSettingException("max_iterations", "expected a positive whole number or 'unlimited', got "
                        + maxIterations);
            }
            Fields.notNegative(maxDelegationDepth, "max_delegation_depth");
            Fields.positive(maxToolResultChars, "max_tool_result_chars");
        }
    }

    /**
     * The limits applied to an agent's builder: each one set, the agent default for each left out.
     *
     * @param agent the builder of the agent these options are for
     */
    public void applyTo(Agent.Builder agent) {
        if (options.maxIterations() != null) {
            agent.maxIterations(options.maxIterations());
        }
        if (options.maxDelegationDepth() != null) {
            agent.maxDelegationDepth(options.maxDelegationDepth());
        }
        if (options.maxToolResultChars() != null) {
            agent.maxToolResultChars(options.maxToolResultChars());
        }
        if (promptCaching != null) {
            agent.promptCaching(promptCaching);
        }
    }

    /**
     * An agent's use of a toolbox: an MCP server's name, a built-in toolbox ({@code state},
     * {@code tasks}) or one registered in code, optionally narrowed to some of its tools.
     *
     * @param name the toolbox's name
     * @param tools the tools to use; empty means all of them
     */
    public record Toolbox(String name, List<String> tools) {

        /** Validates and copies. */
        @JsonCreator(mode = JsonCreator.Mode.PROPERTIES)
        public Toolbox {
            Fields.required(name, "name");
            tools = tools == null ? List.of() : Fields.names(tools, "tools");
        }

        /**
         * All tools of a toolbox; in {@code config.yaml}, a toolbox given by its name alone.
         *
         * @param name the toolbox's name
         * @return the reference
         */
        @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
        public static Toolbox all(String name) {
            return new Toolbox(name, List.of());
        }
    }

    /**
     * Which tools an agent calls freely, which never, and which only after a person approves the
     * call, and whether it may ask the person questions: the {@code approval:} section of an agent.
     *
     * <pre>{@code
     * agents:
     *   - name: writer
     *     toolboxes: [files, github]
     *     approval:
     *       ask: [fs_write*, mcp_github_*]
     *       deny: [shell_exec]
     *       allow: [fs_read*]
     *       otherwise: allow
     *       ask_user: true
     * }</pre>
     *
     * <p>{@code allow}, {@code ask} and {@code deny} are exact tool names or globs ({@code *},
     * {@code ?}) and {@code otherwise} is what a tool no entry matches gets ({@code allow}, the
     * default, {@code ask} or {@code deny}); they make the {@link ToolPolicy}, where an exact name
     * wins over every glob, {@code deny} over {@code ask} and {@code ask} over {@code allow}. They
     * apply to every kind of tool: Java and MCP tools, {@code delegate}, {@code list_agents},
     * {@code load_skill} and {@code ask_user}.
     *
     * @param policy the agent's tool policy
     * @param askUser whether the agent is offered {@code ask_user}, through which the model asks
     *     the person a question ({@code ask_user: true})
     */
    public record Approval(ToolPolicy policy, boolean askUser) {

        /** Validates the policy. */
        public Approval {
            if (policy == null) {
                throw new InvalidSettingException("", "an approval needs a tool policy");
            }
        }
    }

    /**
     * The {@code context:} section of an agent: how its model calls stay inside the model's
     * window. Each strategy is on when its section is present ({@code loop_detection: {}} turns one
     * on with its defaults) and is the strategy itself, made by {@link ContextStrategy}'s factories;
     * they run in the order of the components here (tool scope, budget, trimming, masking, offload,
     * sliding window, compaction, loop detection, failure reflection).
     *
     * <pre>
     * agents:
     *   - name: coder
     *     context:
     *       window: 8000                 # else the table's window for the provider's model
     *       summarizer: cheap            # a provider that writes summaries; else the agent's own
     *       compaction: {threshold: 0.8, keep_recent: 0.3}
     *       trim_tool_results: {keep_recent: 2, max_chars: 1000}
     *       offload: {min_chars: 4000}
     *       loop_detection: {repeats: 3}
     *       failure_reflection: {failures: 3}
     *       budget: {max_tokens: 500000, max_time: 10m, warn_at: 0.8}
     *       tools: {deny: ["delete_*"]}
     * </pre>
     *
     * @param window the model's context window in tokens, or null for the table's
     * @param summarizer the provider that writes summaries, or null for the agent's own
     * @param tools the tools offered ({@code allow}, {@code deny}), or null for all
     * @param budget the run's budgets ({@code max_tokens}, {@code max_time}, {@code warn_at}), or
     *     null for none
     * @param trimToolResults trimming of old tool results ({@code keep_recent}, default 2;
     *     {@code max_chars}, default 1000), or null for none
     * @param maskObservations masking of old tool results ({@code keep_recent}, default 3;
     *     {@code placeholder}), or null for none
     * @param offload offloading of large tool results ({@code min_chars}, default 4000;
     *     {@code preview_chars}; {@code page_chars}; {@code dir}, relative to the project, by
     *     default {@code .shelly/offload} in a project, else a temporary folder), or null for none
     * @param slidingWindow the sliding window ({@code keep_turns}, default 20; {@code stride},
     *     default half of keep_turns; {@code summarize}, default true), or null for none
     * @param compaction compaction ({@code threshold}, default 0.8; {@code keep_recent}, default
     *     0.3; {@code instructions}), or null for none
     * @param loopDetection loop detection ({@code repeats}, default 3), or null for none
     * @param failureReflection failure reflection ({@code failures}, default 3), or null for none
     */
    public record Context(Integer window, String summarizer,
            @JsonDeserialize(converter = Bindings.ToolsStrategy.class) ContextStrategy tools,
            @JsonDeserialize(converter = Bindings.BudgetStrategy.class) ContextStrategy budget,
            @JsonDeserialize(converter = Bindings.TrimStrategy.class) ContextStrategy trimToolResults,
            @JsonDeserialize(converter = Bindings.MaskStrategy.class) ContextStrategy maskObservations,
            Offloading offload,
            @JsonDeserialize(converter = Bindings.WindowStrategy.class) ContextStrategy slidingWindow,
            @JsonDeserialize(converter = Bindings.CompactionStrategy.class) ContextStrategy compaction,
            @JsonDeserialize(converter = Bindings.LoopStrategy.class) ContextStrategy loopDetection,
            @JsonDeserialize(converter = Bindings.FailuresStrategy.class) ContextStrategy failureReflection) {

        /** Validates the window and the summariser's name. */
        public Context {
            Fields.positive(window, "window");
            Fields.notBlank(summarizer, "summarizer");
        }

        /**
         * The strategies this section turns on, in the order they run.
         *
         * @param offloadDir the folder offloaded results go to unless {@code offload} names one
         *     (resolved against {@code projectDir}), or null for a temporary folder
         * @param projectDir the folder a relative offload folder is relative to, or null for the
         *     working folder
         * @return the strategies
         */
        public List<ContextStrategy> strategies(Path offloadDir, Path projectDir) {
            List<ContextStrategy> all = new ArrayList<>();
            Stream.of(tools, budget, trimToolResults, maskObservations, offloaded(offloadDir, projectDir), slidingWindow,
                    compaction, loopDetection, failureReflection).forEach(s -> {
                        if (s != null) {
                            all.add(s);
                        }
                    });
            return List.copyOf(all);
        }

        /** The offload strategy writing where it should; a fresh one, since it keeps a temporary folder. */
        private ContextStrategy offloaded(Path offloadDir, Path projectDir) {
            if (offload == null) {
                return null;
            }
            Path folder = offload.dir() == null ? offloadDir
                    : projectDir == null ? offload.dir() : projectDir.resolve(offload.dir());
            return ContextStrategy.offload(offload.minChars(), offload.previewChars(), offload.pageChars(), folder);
        }
    }

    /**
     * The {@code context.offload:} section: large tool results go to files, the model keeps a
     * preview and reads the rest in pages. The folder is resolved when the agent is built
     * ({@link Context#strategies}).
     *
     * @param minChars results at least this long are offloaded (default 4000)
     * @param previewChars the characters the model still sees (default 500, below minChars)
     * @param pageChars the characters of one {@code recall} page (default 2000, below minChars)
     * @param dir the folder, relative to the project, or null for {@code .shelly/offload} in a
     *     project (else a temporary folder)
     */
    public record Offloading(int minChars, int previewChars, int pageChars, Path dir) {}

    /**
     * Starts an agent configuration.
     *
     * @param name the agent's name
     * @return a builder
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** Collects an agent's settings. */
    public static final class Builder {
        private final String name;
        private String description = "";
        private String instructions = "";
        private String provider;
        private String model;
        private final List<Toolbox> toolboxes = new ArrayList<>();
        private List<String> skills;
        private List<String> delegateTargets;
        private Options options = Options.DEFAULT;
        private Boolean promptCaching;
        private Context context;
        private Approval approval;
        private Coding coding;

        private Builder(String name) {
            this.name = name;
        }

        /**
         * Sets the description.
         *
         * @param value one line
         * @return this builder
         */
        public Builder description(String value) {
            this.description = value;
            return this;
        }

        /**
         * Sets the instructions.
         *
         * @param value the instructions
         * @return this builder
         */
        public Builder instructions(String value) {
            this.instructions = value;
            return this;
        }

        /**
         * Sets the provider's name.
         *
         * @param value a configured provider
         * @return this builder
         */
        public Builder provider(String value) {
            this.provider = value;
            return this;
        }

        /**
         * Sets the model the agent asks its provider for, instead of the provider's own.
         *
         * @param value a model of the provider's kind
         * @return this builder
         */
        public Builder model(String value) {
            this.model = value;
            return this;
        }

        /**
         * Adds toolboxes by name, all their tools.
         *
         * @param names toolbox names
         * @return this builder
         */
        public Builder toolboxes(String... names) {
            for (String n : names) {
                toolboxes.add(Toolbox.all(n));
            }
            return this;
        }

        /**
         * Adds a toolbox narrowed to some tools.
         *
         * @param toolbox the toolbox name
         * @param tools the tools to use
         * @return this builder
         */
        public Builder toolbox(String toolbox, String... tools) {
            toolboxes.add(new Toolbox(toolbox, List.of(tools)));
            return this;
        }

        /**
         * Restricts the agent to these skills.
         *
         * @param names skill names
         * @return this builder
         */
        public Builder skills(String... names) {
            this.skills = List.of(names);
            return this;
        }

        /**
         * Limits the agents it may delegate to.
         *
         * @param names configured agents
         * @return this builder
         */
        public Builder delegateTargets(String... names) {
            this.delegateTargets = List.of(names);
            return this;
        }

        /**
         * Sets the ReAct loop limit.
         *
         * @param value iterations, at least 1; {@link Agent#UNLIMITED} for no limit
         * @return this builder
         */
        public Builder maxIterations(int value) {
            this.options = new Options(value, options.maxDelegationDepth(), options.maxToolResultChars());
            return this;
        }

        /**
         * Sets the delegation depth limit.
         *
         * @param value depth; 0 forbids delegation
         * @return this builder
         */
        public Builder maxDelegationDepth(int value) {
            this.options = new Options(options.maxIterations(), value, options.maxToolResultChars());
            return this;
        }

        /**
         * Sets the size limit of tool results.
         *
         * @param value the most characters of text a tool result keeps; at least 1
         * @return this builder
         */
        public Builder maxToolResultChars(int value) {
            this.options = new Options(options.maxIterations(), options.maxDelegationDepth(), value);
            return this;
        }

        /**
         * Turns prompt-cache hints on or off for the agent's requests (on unless set).
         *
         * @param value false to send no cache hints
         * @return this builder
         */
        public Builder promptCaching(boolean value) {
            this.promptCaching = value;
            return this;
        }

        /**
         * Sets the {@code context:} section: how the agent's model calls stay inside the window.
         *
         * @param value the section
         * @return this builder
         */
        public Builder context(Context value) {
            this.context = value;
            return this;
        }

        /**
         * Sets the agent's tool policy and whether it may ask the user.
         *
         * @param value the {@code approval:} settings
         * @return this builder
         */
        public Builder approval(Approval value) {
            this.approval = value;
            return this;
        }

        /**
         * Gives the agent the coding toolbox.
         *
         * @param value the {@code coding:} settings
         * @return this builder
         */
        public Builder coding(Coding value) {
            this.coding = value;
            return this;
        }

        /**
         * Builds the configuration.
         *
         * @return the configuration
         */
        public AgentConfig build() {
            return new AgentConfig(name, description, instructions, provider, model, toolboxes, skills, delegateTargets,
                    options, promptCaching, context, approval, coding);
        }
    }

    /**
     * The coding toolbox of an agent: the {@code coding:} section of an agent. The agent gets the
     * file, search, command and git tools of shelly-coding (an optional dependency of the engine,
     * which must then be on the class path), confined to the workspace.
     *
     * <pre>{@code
     * agents:
     *   - name: coder
     *     coding:
     *       workspace: .            # relative to the project directory
     *       allow_commands: [java, mvn, git]
     *       deny_commands: [rm]
     *       timeout: 60s
     *       shell: false
     *       push: false
     *       sensitive: ["*.secret", "config/prod/*"]
     *       sandbox: bubblewrap     # default on Linux; none runs commands unconfined, on purpose
     *       network: false          # default: sandboxed commands have no network
     *       hide: [/srv/data]       # more paths commands must not see
     *     approval:
     *       allow: [fs_edit]        # the agent's rules win over the coding defaults
     * }</pre>
     *
     * <p>Approval defaults: writes, deletes, commands and commits ask, reads and searches are
     * allowed; the agent's {@code approval:} rules win over them for the tools they name.
     *
     * @param workspace the workspace directory, relative to the project directory (the one holding
     *     {@code .shelly}) or absolute; null for the project directory
     * @param allowCommands the only programs commands may run: names (resolved once on the search
     *     path) or absolute paths, each optionally with the arguments every call must start with
     *     ({@code "python3 -m pytest"}); empty for every program not denied
     * @param denyCommands programs refused beside the toolbox's default denylist
     * @param timeout how long a command may run (default 30 s; from 1 s to 10 min)
     * @param shell whether commands may be a line run by {@code sh -c}; null for no
     * @param push whether {@code git push} is allowed; null for no
     * @param sensitive sensitive-file patterns beside the defaults ({@code .env}, private keys,
     *     {@code .shelly}, ...)
     * @param sandbox {@code bubblewrap} (the default on Linux) or {@code none} to run commands and
     *     git without confinement, on purpose; null for the default
     * @param network whether sandboxed commands may reach the network; null for no
     * @param hide absolute paths, beside the defaults, that sandboxed commands must not see
     */
    public record Coding(String workspace, List<String> allowCommands, List<String> denyCommands, Duration timeout,
            Boolean shell, Boolean push, List<String> sensitive, String sandbox, Boolean network, List<String> hide) {

        /** The values {@code sandbox:} takes. */
        public static final List<String> SANDBOXES = List.of("bubblewrap", "none");

        /** Validates and copies. */
        public Coding {
            Fields.notBlank(workspace, "workspace");
            allowCommands = Fields.commands(allowCommands, "allow_commands");
            denyCommands = Fields.programs(denyCommands, "deny_commands");
            if (timeout != null && (timeout.toSeconds() < 1 || timeout.compareTo(Duration.ofMinutes(10)) > 0)) {
                throw new InvalidSettingException("timeout", "must be from 1s to 10m, got " + timeout);
            }
            sensitive = Fields.patterns(sensitive, "sensitive");
            if (sandbox != null && !SANDBOXES.contains(sandbox)) {
                throw new InvalidSettingException("sandbox", "expected one of " + String.join(", ", SANDBOXES) + ", got '"
                        + sandbox + "'");
            }
            hide = Fields.absolutePaths(hide, "hide");
        }

        /**
         * Whether commands may use a shell.
         *
         * @return true when {@code shell: true}
         */
        public boolean shellAllowed() {
            return Boolean.TRUE.equals(shell);
        }

        /**
         * Whether sandboxed commands may reach the network.
         *
         * @return true when {@code network: true}
         */
        public boolean networkAllowed() {
            return Boolean.TRUE.equals(network);
        }

        /**
         * Whether {@code git push} is allowed.
         *
         * @return true when {@code push: true}
         */
        public boolean pushAllowed() {
            return Boolean.TRUE.equals(push);
        }
    }
}
