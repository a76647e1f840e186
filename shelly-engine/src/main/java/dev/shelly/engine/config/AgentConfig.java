package dev.shelly.engine.config;

import dev.shelly.agent.Agent;
import java.util.ArrayList;
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
 * @param maxIterations the ReAct loop limit (at least 1, {@link Agent#UNLIMITED} for none), or null for the
 *     agent default ({@value Agent#DEFAULT_MAX_ITERATIONS})
 * @param maxDelegationDepth how deep it may delegate (0: not at all), or null for the agent default
 *     ({@value Agent#DEFAULT_MAX_DELEGATION_DEPTH})
 * @param maxToolResultChars the most characters of text a tool result keeps, or null for the
 *     agent default (100,000)
 * @param promptCaching whether the agent's requests carry prompt-cache hints, or null for the
 *     agent default (on)
 */
public record AgentConfig(String name, String description, String instructions, String provider,
        List<ToolboxRef> toolboxes, List<String> skills, Integer maxIterations, Integer maxDelegationDepth,
        Integer maxToolResultChars, Boolean promptCaching) {

    /** Validates and copies. */
    public AgentConfig {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("AgentConfig.name must not be null or blank");
        }
        description = description == null ? "" : description;
        instructions = instructions == null ? "" : instructions;
        toolboxes = toolboxes == null ? List.of() : List.copyOf(toolboxes);
        skills = skills == null ? null : List.copyOf(skills);
        if (maxIterations != null && maxIterations < 1) {
            throw new IllegalArgumentException("AgentConfig.maxIterations of '" + name + "' must be at least 1, was "
                    + maxIterations + "; use Agent.UNLIMITED for no limit");
        }
        if (maxDelegationDepth != null && maxDelegationDepth < 0) {
            throw new IllegalArgumentException("AgentConfig.maxDelegationDepth of '" + name + "' must not be negative");
        }
        if (maxToolResultChars != null && maxToolResultChars < 1) {
            throw new IllegalArgumentException("AgentConfig.maxToolResultChars of '" + name + "' must be at least 1");
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
        private Integer maxIterations;
        private Integer maxDelegationDepth;
        private Integer maxToolResultChars;
        private Boolean promptCaching;

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
            this.maxIterations = value;
            return this;
        }

        /**
         * Sets the delegation depth limit.
         *
         * @param value depth; 0 forbids delegation
         * @return this builder
         */
        public Builder maxDelegationDepth(int value) {
            this.maxDelegationDepth = value;
            return this;
        }

        /**
         * Sets the size limit of tool results.
         *
         * @param value the most characters of text a tool result keeps; at least 1
         * @return this builder
         */
        public Builder maxToolResultChars(int value) {
            this.maxToolResultChars = value;
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
         * Builds the configuration.
         *
         * @return the configuration
         */
        public AgentConfig build() {
            return new AgentConfig(name, description, instructions, provider, toolboxes, skills, maxIterations,
                    maxDelegationDepth, maxToolResultChars, promptCaching);
        }
    }
}
