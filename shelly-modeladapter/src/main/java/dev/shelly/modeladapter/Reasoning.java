package dev.shelly.modeladapter;

import java.util.regex.Pattern;

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
