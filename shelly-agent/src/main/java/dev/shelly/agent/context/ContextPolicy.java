package dev.shelly.agent.context;

import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ContextWindows;
import dev.shelly.modeladapter.TokenEstimator;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * How an agent keeps its model calls inside the model's window: the window (or the table to find
 * it in), how tokens are estimated, the model that writes summaries, and the
 * {@link ContextStrategy strategies} to run, in order, before every call.
 *
 * <pre>{@code
 * Agent agent = Agent.builder("coder")
 *         .completer(model)
 *         .contextPolicy(ContextPolicy.builder()
 *                 .window(8_000)
 *                 .strategies(ContextStrategy.offload(4_000), ContextStrategy.trimToolResults(2, 1_000),
 *                         ContextStrategy.compaction(0.8), ContextStrategy.loopDetection(3),
 *                         ContextStrategy.failureReflection(3), ContextStrategy.tokenBudget(500_000))
 *                 .build())
 *         .build();
 * }</pre>
 *
 * <p>The window is the one set here, else the one {@link #windows()} gives for the model the
 * agent's last response named (strategies that need a window wait for the first response).
 */
public final class ContextPolicy {
    /** The sender of the summaries and notes context management adds to a chat. */
    public static final String SENDER = "context";
    /** The metadata key that marks a message context management added: its value is the kind. */
    public static final String KIND = "shelly.context";
    /** The {@link #KIND} of a summary. */
    public static final String SUMMARY = "summary";
    /** The {@link #KIND} of a note. */
    public static final String NOTE = "note";
    /** The metadata key of a summary: the chat index where the agent's view resumes. */
    public static final String FROM = "shelly.context.from";
    /** The metadata key naming the agent a summary belongs to. */
    public static final String AGENT = "shelly.context.agent";
    /** The metadata key naming the strategy that added a summary or note. */
    public static final String STRATEGY = "shelly.context.strategy";
    /** The heading a summary opens with in the chat and in the model's view. */
    public static final String SUMMARY_HEADING = "Summary of the conversation so far (earlier messages were compacted):\n\n";

    /** No context management: the model sees the whole chat. */
    public static final ContextPolicy NONE = new ContextPolicy(new Builder());

    private final Integer window;
    private final ContextWindows windows;
    private final TokenEstimator estimator;
    private final Completer summarizer;
    private final List<ContextStrategy> strategies;

    private ContextPolicy(Builder b) {
        this.window = b.window;
        this.windows = b.windows;
        this.estimator = b.estimator;
        this.summarizer = b.summarizer;
        this.strategies = List.copyOf(b.strategies);
    }

    /**
     * Starts a policy.
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The window set for the agent's model, which wins over the table.
     *
     * @return the window in tokens, or empty to look it up in {@link #windows()}
     */
    public OptionalInt window() {
        return window == null ? OptionalInt.empty() : OptionalInt.of(window);
    }

    /**
     * The table the window is found in by model id.
     *
     * @return the table; {@link ContextWindows#defaults()} unless set
     */
    public ContextWindows windows() {
        return windows;
    }

    /**
     * How tokens are estimated.
     *
     * @return the estimator; {@link TokenEstimator#heuristic()} unless set
     */
    public TokenEstimator estimator() {
        return estimator;
    }

    /**
     * The model that writes summaries for strategies without one of their own.
     *
     * @return the summariser, or empty for the agent's own model
     */
    public Optional<Completer> summarizer() {
        return Optional.ofNullable(summarizer);
    }

    /**
     * The strategies, in the order they run.
     *
     * @return the strategies
     */
    public List<ContextStrategy> strategies() {
        return strategies;
    }

    /**
     * Whether this policy manages anything: it has strategies.
     *
     * @return false for {@link #NONE} and any policy without strategies
     */
    public boolean active() {
        return !strategies.isEmpty();
    }

    @Override
    public String toString() {
        List<String> names = new ArrayList<>();
        for (ContextStrategy s : strategies) {
            names.add(s.name());
        }
        return "ContextPolicy[window=" + (window == null ? "from table" : window) + ", strategies=" + names + "]";
    }

    /** Collects a policy's settings; all are optional. */
    public static final class Builder {
        private Integer window;
        private ContextWindows windows = ContextWindows.defaults();
        private TokenEstimator estimator = TokenEstimator.heuristic();
        private Completer summarizer;
        private final List<ContextStrategy> strategies = new ArrayList<>();

        private Builder() {}

        /**
         * The model's context window, when the table does not know the model or a smaller one
         * is wanted.
         *
         * @param tokens the window; at least 1
         * @return this builder
         * @throws IllegalArgumentException when the window is below 1
         */
        public Builder window(int tokens) {
            if (tokens < 1) {
                throw new IllegalArgumentException("ContextPolicy window must be at least 1 token, was " + tokens);
            }
            this.window = tokens;
            return this;
        }

        /**
         * The table to find the window in by the model's id.
         *
         * @param value the table
         * @return this builder
         */
        public Builder windows(ContextWindows value) {
            if (value == null) {
                throw new IllegalArgumentException("ContextPolicy windows must not be null; use ContextWindows.empty()");
            }
            this.windows = value;
            return this;
        }

        /**
         * How tokens are estimated.
         *
         * @param value the estimator
         * @return this builder
         */
        public Builder estimator(TokenEstimator value) {
            if (value == null) {
                throw new IllegalArgumentException("ContextPolicy estimator must not be null");
            }
            this.estimator = value;
            return this;
        }

        /**
         * The model that writes summaries, for example a cheaper one than the agent's.
         *
         * @param value the completer
         * @return this builder
         */
        public Builder summarizer(Completer value) {
            if (value == null) {
                throw new IllegalArgumentException("ContextPolicy summarizer must not be null");
            }
            this.summarizer = value;
            return this;
        }

        /**
         * Adds strategies; they run in the order added.
         *
         * @param more the strategies
         * @return this builder
         * @throws IllegalArgumentException when one is null
         */
        public Builder strategies(ContextStrategy... more) {
            if (more == null) {
                throw new IllegalArgumentException("ContextPolicy strategies must not be null");
            }
            for (int i = 0; i < more.length; i++) {
                if (more[i] == null) {
                    throw new IllegalArgumentException("ContextPolicy strategies[" + i + "] must not be null");
                }
                strategies.add(more[i]);
            }
            return this;
        }

        /**
         * Adds strategies; they run in the order added.
         *
         * @param more the strategies
         * @return this builder
         */
        public Builder strategies(List<? extends ContextStrategy> more) {
            if (more == null) {
                throw new IllegalArgumentException("ContextPolicy strategies must not be null");
            }
            return strategies(more.toArray(new ContextStrategy[0]));
        }

        /**
         * Builds the policy.
         *
         * @return the policy
         */
        public ContextPolicy build() {
            return new ContextPolicy(this);
        }
    }
}
