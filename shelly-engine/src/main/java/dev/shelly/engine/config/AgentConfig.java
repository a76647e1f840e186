package dev.shelly.engine.config;

import dev.shelly.agent.Agent;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import java.util.ArrayList;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;
import java.util.List;

/**
 * An agent the engine registers: who it is, which provider answers for it, which toolboxes and
 * skills it has, and its limits.
 *
 * @param name the agent's unique name
 * @param description one line saying what it does (other agents see it)
 * @param instructions its instructions (the system prompt's Instructions section)
 * @param provider the name of a configured provider, or null when exactly one is configured
 * @param toolboxes the toolboxes it uses, in lookup order
 * @param skills the names of the skills it knows, or null for every skill the engine loaded
 * @param options its limits; every one left out takes the agent default
 * @param promptCaching whether the agent's requests carry prompt-cache hints, or null for the
 *     agent default (on)
 * @param context how its model calls stay inside the model's window (the {@code context:}
 *     section), or null to send the whole chat
 * @param approval its tool policy and whether it may ask the user (the {@code approval:}
 *     section), or null for the engine's default policy
 * @param coding its coding toolbox (the {@code coding:} section), or null for none
 */
public record AgentConfig(String name, String description, String instructions, String provider,
        List<ToolboxRef> toolboxes, List<String> skills, Options options, Boolean promptCaching, ContextConfig context,
        ApprovalConfig approval, CodingConfig coding) {

    /** Validates and copies. */
    public AgentConfig {
        Fields.required(name, "name");
        description = description == null ? "" : description.strip();
        instructions = instructions == null ? "" : instructions.strip();
        Fields.notBlank(provider, "provider");
        toolboxes = toolboxes == null ? List.of() : List.copyOf(toolboxes);
        skills = Fields.names(skills, "skills");
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
            List<ToolboxRef> toolboxes, List<String> skills, Options options, Boolean promptCaching,
            ApprovalConfig approval) {
        this(name, description, instructions, provider, toolboxes, skills, options, promptCaching, null, approval, null);
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
    public record Options(@JsonDeserialize(using = Iterations.class) Integer maxIterations,
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

    /** Reads {@code max_iterations}: a positive whole number, or {@code unlimited}. */
    static final class Iterations extends ValueDeserializer<Integer> {
        @Override
        public Integer deserialize(JsonParser p, DeserializationContext ctxt) {
            String text = p.getString() == null ? "" : p.getString().strip();
            if (text.equalsIgnoreCase("unlimited")) {
                return Agent.UNLIMITED;
            }
            try {
                int value = Integer.parseInt(text);
                if (value > 0) {
                    return value;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new InvalidSettingException("", "expected a positive whole number or 'unlimited', got '" + text + "'");
        }
    }

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
        private final List<ToolboxRef> toolboxes = new ArrayList<>();
        private List<String> skills;
        private Options options = Options.DEFAULT;
        private Boolean promptCaching;
        private ContextConfig context;
        private ApprovalConfig approval;
        private CodingConfig coding;

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
         * Adds toolboxes by name, all their tools.
         *
         * @param names toolbox names
         * @return this builder
         */
        public Builder toolboxes(String... names) {
            for (String n : names) {
                toolboxes.add(ToolboxRef.all(n));
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
            toolboxes.add(new ToolboxRef(toolbox, List.of(tools)));
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
        public Builder context(ContextConfig value) {
            this.context = value;
            return this;
        }

        /**
         * Sets the agent's tool policy and whether it may ask the user.
         *
         * @param value the {@code approval:} settings
         * @return this builder
         */
        public Builder approval(ApprovalConfig value) {
            this.approval = value;
            return this;
        }

        /**
         * Gives the agent the coding toolbox.
         *
         * @param value the {@code coding:} settings
         * @return this builder
         */
        public Builder coding(CodingConfig value) {
            this.coding = value;
            return this;
        }

        /**
         * Builds the configuration.
         *
         * @return the configuration
         */
        public AgentConfig build() {
            return new AgentConfig(name, description, instructions, provider, toolboxes, skills, options, promptCaching,
                    context, approval, coding);
        }
    }
}
