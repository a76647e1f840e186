package dev.shelly.modeladapter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The options of one model call. Every component may be null, meaning "not set": the layer below
 * (the agent's options, then the provider's defaults, then the provider's own default) applies.
 * {@link #orElse} merges two layers field by field.
 *
 * <p>The checks here are provider-neutral; a provider refuses what it cannot map, before any
 * HTTP, with a {@link ModelException} of kind {@code INVALID_REQUEST}.
 *
 * @param toolChoice whether and which tools the model must call
 * @param responseFormat the shape of the answer
 * @param maxTokens the most tokens to generate, at least 1
 * @param temperature sampling temperature, zero or more (each provider has its own maximum)
 * @param topP nucleus sampling, above 0 and at most 1
 * @param stop stop sequences, none null or empty
 * @param reasoning how much the model reasons
 * @param cache where to place prompt-cache breakpoints
 */
public record ModelOptions(ToolChoice toolChoice, ResponseFormat responseFormat, Integer maxTokens,
        Double temperature, Double topP, List<String> stop, Reasoning reasoning, CacheHints cache) {

    /** Nothing set. */
    public static final ModelOptions NONE = new ModelOptions(null, null, null, null, null, null, null, null);

    /** Validates the numbers and copies the stop sequences. */
    public ModelOptions {
        if (maxTokens != null && maxTokens < 1) {
            throw new IllegalArgumentException("ModelOptions.maxTokens must be at least 1, was " + maxTokens);
        }
        if (temperature != null && (!Double.isFinite(temperature) || temperature < 0)) {
            throw new IllegalArgumentException("ModelOptions.temperature must be a finite number of zero or more, was "
                    + temperature);
        }
        if (topP != null && (!(topP > 0) || topP > 1)) {
            throw new IllegalArgumentException("ModelOptions.topP must be above 0 and at most 1, was " + topP);
        }
        if (stop != null) {
            for (int i = 0; i < stop.size(); i++) {
                String s = stop.get(i);
                if (s == null || s.isEmpty()) {
                    throw new IllegalArgumentException("ModelOptions.stop[" + i + "] must not be null or empty");
                }
            }
            stop = List.copyOf(stop);
        }
    }

    /**
     * These options over defaults, field by field: this value where set, else the default's.
     *
     * @param defaults the lower layer; null is the same as {@link #NONE}
     * @return the merged options
     */
    public ModelOptions orElse(ModelOptions defaults) {
        if (defaults == null || defaults == NONE || defaults.equals(NONE)) {
            return this;
        }
        if (this == NONE) {
            return defaults;
        }
        return new ModelOptions(
                toolChoice != null ? toolChoice : defaults.toolChoice,
                responseFormat != null ? responseFormat : defaults.responseFormat,
                maxTokens != null ? maxTokens : defaults.maxTokens,
                temperature != null ? temperature : defaults.temperature,
                topP != null ? topP : defaults.topP,
                stop != null ? stop : defaults.stop,
                reasoning != null ? reasoning : defaults.reasoning,
                cache != null ? cache : defaults.cache);
    }

    /**
     * A builder with nothing set.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder starting from these options.
     *
     * @return the builder
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.toolChoice = toolChoice;
        b.responseFormat = responseFormat;
        b.maxTokens = maxTokens;
        b.temperature = temperature;
        b.topP = topP;
        b.stop = stop;
        b.reasoning = reasoning;
        b.cache = cache;
        return b;
    }

    /**
     * A copy with another tool choice.
     *
     * @param value the tool choice, or null for not set
     * @return the new options
     */
    public ModelOptions withToolChoice(ToolChoice value) {
        return new ModelOptions(value, responseFormat, maxTokens, temperature, topP, stop, reasoning, cache);
    }

    /**
     * A copy with another response format.
     *
     * @param value the format, or null for not set
     * @return the new options
     */
    public ModelOptions withResponseFormat(ResponseFormat value) {
        return new ModelOptions(toolChoice, value, maxTokens, temperature, topP, stop, reasoning, cache);
    }

    /**
     * A copy with other cache hints.
     *
     * @param value the hints, or null for not set
     * @return the new options
     */
    public ModelOptions withCache(CacheHints value) {
        return new ModelOptions(toolChoice, responseFormat, maxTokens, temperature, topP, stop, reasoning, value);
    }

    /** Builds {@link ModelOptions}; every setter takes null to unset. */
    public static final class Builder {
        private ToolChoice toolChoice;
        private ResponseFormat responseFormat;
        private Integer maxTokens;
        private Double temperature;
        private Double topP;
        private List<String> stop;
        private Reasoning reasoning;
        private CacheHints cache;

        private Builder() {}

        /**
         * Sets the tool choice.
         *
         * @param value the choice
         * @return this builder
         */
        public Builder toolChoice(ToolChoice value) {
            this.toolChoice = value;
            return this;
        }

        /**
         * Sets the response format.
         *
         * @param value the format
         * @return this builder
         */
        public Builder responseFormat(ResponseFormat value) {
            this.responseFormat = value;
            return this;
        }

        /**
         * Sets the most tokens to generate.
         *
         * @param value at least 1
         * @return this builder
         */
        public Builder maxTokens(Integer value) {
            this.maxTokens = value;
            return this;
        }

        /**
         * Sets the sampling temperature.
         *
         * @param value zero or more
         * @return this builder
         */
        public Builder temperature(Double value) {
            this.temperature = value;
            return this;
        }

        /**
         * Sets nucleus sampling.
         *
         * @param value above 0, at most 1
         * @return this builder
         */
        public Builder topP(Double value) {
            this.topP = value;
            return this;
        }

        /**
         * Sets the stop sequences.
         *
         * @param values the sequences; none null or empty
         * @return this builder
         */
        public Builder stop(String... values) {
            this.stop = values == null ? null : new ArrayList<>(Arrays.asList(values));
            return this;
        }

        /**
         * Sets the stop sequences.
         *
         * @param values the sequences; none null or empty
         * @return this builder
         */
        public Builder stop(List<String> values) {
            this.stop = values;
            return this;
        }

        /**
         * Sets how much the model reasons.
         *
         * @param value the reasoning
         * @return this builder
         */
        public Builder reasoning(Reasoning value) {
            this.reasoning = value;
            return this;
        }

        /**
         * Sets the cache hints.
         *
         * @param value the hints
         * @return this builder
         */
        public Builder cache(CacheHints value) {
            this.cache = value;
            return this;
        }

        /**
         * Builds the options.
         *
         * @return the options
         * @throws IllegalArgumentException naming the first invalid field
         */
        public ModelOptions build() {
            return new ModelOptions(toolChoice, responseFormat, maxTokens, temperature, topP, stop, reasoning, cache);
        }
    }

    /**
     * Where a provider with explicit prompt caching (Anthropic) places cache breakpoints. Providers
     * that cache on their own (OpenAI, xAI) send nothing for it.
     *
     * @param prefix cache the stable prefix: the tools and the system prompt
     * @param conversation cache the conversation up to the last message, so the next call of a
     *     loop reads it back
     * @param ttl how long the entries live, or null for the provider's default
     */
    public record CacheHints(boolean prefix, boolean conversation, Duration ttl) {

        /** No caching asked for. */
        public static final CacheHints OFF = new CacheHints(false, false, null);
        /** Prefix and conversation cached with the provider's default lifetime. */
        public static final CacheHints ON = new CacheHints(true, true, null);

        /** Validates the lifetime. */
        public CacheHints {
            if (ttl != null && (ttl.isNegative() || ttl.isZero())) {
                throw new IllegalArgumentException("CacheHints.ttl must be positive, was " + ttl);
            }
        }

        /**
         * Whether any breakpoint is asked for.
         *
         * @return true when the prefix or the conversation is cached
         */
        public boolean any() {
            return prefix || conversation;
        }
    }

    /**
     * How much the model reasons before it answers. Anthropic takes a token {@link Budget}; OpenAI
     * and xAI take an {@link Effort}; a provider refuses the form it does not take, before any HTTP.
     * (Named {@code Reasoning}: {@code shelly-chats} already has a {@code Thinking} part.)
     */
    public sealed interface Reasoning {

        /** No reasoning asked for: the field is left out. */
        Reasoning OFF = new Off();

        /**
         * A budget of reasoning tokens.
         *
         * @param tokens at least 1 (Anthropic needs at least 1024, checked there)
         * @return the budget
         */
        static Budget budget(int tokens) {
            return new Budget(tokens);
        }

        /**
         * A reasoning effort level.
         *
         * @param level a lower-case word such as {@code low}, {@code medium} or {@code high}
         * @return the effort
         */
        static Effort effort(String level) {
            return new Effort(level);
        }

        /** No reasoning asked for. */
        record Off() implements Reasoning {}

        /**
         * A budget of reasoning tokens.
         *
         * @param tokens at least 1
         */
        record Budget(int tokens) implements Reasoning {
            /** Validates the count. */
            public Budget {
                if (tokens < 1) {
                    throw new IllegalArgumentException("Reasoning.budget tokens must be at least 1, was " + tokens);
                }
            }
        }

        /**
         * A reasoning effort level, sent as it is.
         *
         * @param level a lower-case word: {@code none}, {@code minimal}, {@code low}, {@code medium},
         *     {@code high}, {@code xhigh}, or another the provider knows
         */
        record Effort(String level) implements Reasoning {
            private static final Pattern WORD = Pattern.compile("[a-z]+");

            /** Validates the level. */
            public Effort {
                if (level == null || !WORD.matcher(level).matches()) {
                    throw new IllegalArgumentException("Reasoning.effort level must be a lower-case word such as low, "
                            + "medium or high, was " + (level == null ? "null" : "'" + level + "'"));
                }
            }
        }
    }

    /**
     * Whether and which tools the model must call on one request. Providers map it to their own
     * field; a request that sets none leaves the provider's default (the model decides).
     */
    public sealed interface ToolChoice {

        /** The model decides whether to call tools. */
        ToolChoice AUTO = new Auto();
        /** The model must not call tools, although they are offered. */
        ToolChoice NONE = new None();
        /** The model must call at least one of the offered tools. */
        ToolChoice REQUIRED = new Required();

        /**
         * The model must call this tool.
         *
         * @param name the tool's name; the request must offer it
         * @return the choice
         */
        static ToolChoice named(String name) {
            return new Named(name);
        }

        /** The model decides whether to call tools. */
        record Auto() implements ToolChoice {}

        /** The model must not call tools. */
        record None() implements ToolChoice {}

        /** The model must call at least one tool. */
        record Required() implements ToolChoice {}

        /**
         * The model must call one named tool.
         *
         * @param name the tool's name
         */
        record Named(String name) implements ToolChoice {
            /** Validates the name. */
            public Named {
                if (name == null || name.isBlank()) {
                    throw new IllegalArgumentException("ToolChoice.named name must not be null or blank");
                }
            }
        }
    }
}
