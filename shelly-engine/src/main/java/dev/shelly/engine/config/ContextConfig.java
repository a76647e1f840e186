package dev.shelly.engine.config;

import dev.shelly.agent.context.ContextStrategy;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import java.time.Duration;
import java.util.List;

/**
 * The {@code context:} section of an agent: how its model calls stay inside the model's window.
 * Each strategy is on when its section is present ({@code loop_detection: {}} turns one on with
 * its defaults); they run in the order of the components here (tool scope, budget, trimming,
 * masking, offload, sliding window, compaction, loop detection, failure reflection).
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
 * @param tools the tools offered, or null for all
 * @param budget the run's budgets, or null for none
 * @param trimToolResults trimming of old tool results, or null for none
 * @param maskObservations masking of old tool results, or null for none
 * @param offload offloading of large tool results, or null for none
 * @param slidingWindow the sliding window, or null for none
 * @param compaction compaction, or null for none
 * @param loopDetection loop detection, or null for none
 * @param failureReflection failure reflection, or null for none
 */
public record ContextConfig(Integer window, String summarizer, Tools tools, BudgetSettings budget,
        Trim trimToolResults, Mask maskObservations, OffloadSettings offload, Window slidingWindow,
        CompactionSettings compaction, Loop loopDetection, Failures failureReflection) {

    /** Validates the window and the summariser's name. */
    public ContextConfig {
        Fields.positive(window, "window");
        Fields.notBlank(summarizer, "summarizer");
    }

    /**
     * {@code tools:}: which tools the model is offered.
     *
     * @param allow names or prefixes ending in {@code *}; empty or null for all
     * @param deny names or prefixes never offered
     */
    public record Tools(List<String> allow, List<String> deny) {
        /** Validates the names. */
        public Tools {
            allow = Fields.names(allow, "allow");
            deny = Fields.names(deny, "deny");
            allow = allow == null ? List.of() : allow;
            deny = deny == null ? List.of() : deny;
            if (allow.isEmpty() && deny.isEmpty()) {
                throw new InvalidSettingException("allow", "name the tools to allow or to deny");
            }
            for (int i = 0; i < deny.size(); i++) {
                if (deny.get(i).strip().equals("*")) {
                    throw new InvalidSettingException("deny[" + i + "]", "'*' would offer no tool");
                }
            }
        }

        ContextStrategy strategy() {
            return ContextStrategy.toolScope(allow, deny);
        }
    }

    /**
     * {@code budget:}: token and time budgets for a run.
     *
     * @param maxTokens the most tokens a run may use, or null for no token budget
     * @param maxTime the longest a run may take ({@code 10m}), or null for no time budget
     * @param warnAt the share of a budget at which the model is warned (default 0.8)
     */
    public record BudgetSettings(Long maxTokens, Duration maxTime, Double warnAt) {
        /** Validates the limits. */
        public BudgetSettings {
            Fields.positive(maxTokens, "max_tokens");
            if (maxTime != null && (maxTime.isZero() || maxTime.isNegative())) {
                throw new InvalidSettingException("max_time", "expected a positive duration, got " + maxTime);
            }
            if (maxTokens == null && maxTime == null) {
                throw new InvalidSettingException("max_tokens", "set max_tokens or max_time (or both)");
            }
            if (warnAt != null && !(warnAt > 0 && warnAt < 1)) {
                throw new InvalidSettingException("warn_at", "expected a number above 0 and below 1, got " + warnAt);
            }
        }

        ContextStrategy strategy() {
            return ContextStrategy.budget(maxTokens == null ? 0 : maxTokens, maxTime, warnAt == null ? 0.8 : warnAt);
        }
    }

    /**
     * {@code trim_tool_results:}.
     *
     * @param keepRecent how many of the newest tool messages stay whole (default 2)
     * @param maxChars how many characters an older result keeps (default 1000)
     */
    public record Trim(Integer keepRecent, Integer maxChars) {
        /** Validates the counts. */
        public Trim {
            Fields.notNegative(keepRecent, "keep_recent");
            Fields.positive(maxChars, "max_chars");
        }

        ContextStrategy strategy() {
            return ContextStrategy.trimToolResults(keepRecent == null ? 2 : keepRecent, maxChars == null ? 1_000 : maxChars);
        }
    }

    /**
     * {@code mask_observations:}.
     *
     * @param keepRecent how many of the newest tool messages stay whole (default 3)
     * @param placeholder what the model reads instead of an older result
     */
    public record Mask(Integer keepRecent, String placeholder) {
        /** Validates the count and the placeholder. */
        public Mask {
            Fields.notNegative(keepRecent, "keep_recent");
            Fields.notBlank(placeholder, "placeholder");
        }

        ContextStrategy strategy() {
            return ContextStrategy.maskObservations(keepRecent == null ? 3 : keepRecent, placeholder);
        }
    }

    /**
     * {@code offload:}.
     *
     * @param minChars the length from which a result is offloaded (default 4000)
     * @param previewChars the characters the model still sees (default 500, below min_chars)
     * @param pageChars the characters of one {@code recall} page (default 2000, below min_chars)
     * @param dir the folder the results go to, relative to the project; by default
     *     {@code .shelly/offload} in a project, else a temporary folder
     */
    public record OffloadSettings(Integer minChars, Integer previewChars, Integer pageChars, String dir) {
        /** Validates the lengths. */
        public OffloadSettings {
            Fields.positive(minChars, "min_chars");
            Fields.notNegative(previewChars, "preview_chars");
            Fields.positive(pageChars, "page_chars");
            Fields.notBlank(dir, "dir");
            int min = minChars == null ? 4_000 : minChars;
            if (min < 2) {
                throw new InvalidSettingException("min_chars", "expected at least 2, got " + min);
            }
            if (previewChars != null && previewChars >= min) {
                throw new InvalidSettingException("preview_chars", "must be below min_chars (" + min + "), got " + previewChars);
            }
            if (pageChars != null && pageChars >= min) {
                throw new InvalidSettingException("page_chars", "must be below min_chars (" + min + "), got " + pageChars);
            }
        }

        ContextStrategy strategy(java.nio.file.Path folder) {
            int min = minChars == null ? 4_000 : minChars;
            return ContextStrategy.offload(min, previewChars == null ? Math.min(500, min / 2) : previewChars,
                    pageChars == null ? Math.min(2_000, min / 2) : pageChars, folder);
        }
    }

    /**
     * {@code sliding_window:}.
     *
     * @param keepTurns how many of the newest turns stay in view (default 20)
     * @param stride how many more may gather before it slides (default half of keep_turns)
     * @param summarize whether what leaves the view is summarised (default true)
     */
    public record Window(Integer keepTurns, Integer stride, Boolean summarize) {
        /** Validates the counts. */
        public Window {
            Fields.positive(keepTurns, "keep_turns");
            Fields.positive(stride, "stride");
        }

        ContextStrategy strategy() {
            int keep = keepTurns == null ? 20 : keepTurns;
            return ContextStrategy.slidingWindow(keep, stride == null ? Math.max(1, keep / 2) : stride,
                    summarize == null || summarize, null, null);
        }
    }

    /**
     * {@code compaction:}.
     *
     * @param threshold the share of the window past which the view is compacted (default 0.8)
     * @param keepRecent the share of the window the recent turns keep (default 0.3, below
     *     threshold)
     * @param instructions what the summariser is told, or null for the default
     */
    public record CompactionSettings(Double threshold, Double keepRecent, String instructions) {
        /** Validates the shares. */
        public CompactionSettings {
            if (threshold != null && !(threshold > 0 && threshold <= 1)) {
                throw new InvalidSettingException("threshold", "expected a number above 0 and at most 1, got " + threshold);
            }
            double t = threshold == null ? 0.8 : threshold;
            if (keepRecent != null && !(keepRecent > 0 && keepRecent < t)) {
                throw new InvalidSettingException("keep_recent", "expected a number above 0 and below threshold (" + t
                        + "), got " + keepRecent);
            }
            Fields.notBlank(instructions, "instructions");
        }

        ContextStrategy strategy() {
            double t = threshold == null ? 0.8 : threshold;
            double keep = keepRecent != null ? keepRecent : Math.min(0.3, t / 2);
            return ContextStrategy.compaction(t, keep, null, instructions);
        }
    }

    /**
     * {@code loop_detection:}.
     *
     * @param repeats how many identical replies in a row make a loop (default 3)
     */
    public record Loop(Integer repeats) {
        /** Validates the count. */
        public Loop {
            if (repeats != null && repeats < 2) {
                throw new InvalidSettingException("repeats", "expected at least 2, got " + repeats);
            }
        }

        ContextStrategy strategy() {
            return ContextStrategy.loopDetection(repeats == null ? 3 : repeats);
        }
    }

    /**
     * {@code failure_reflection:}.
     *
     * @param failures how many failed tool results in a row ask for reflection (default 3)
     */
    public record Failures(Integer failures) {
        /** Validates the count. */
        public Failures {
            Fields.positive(failures, "failures");
        }

        ContextStrategy strategy() {
            return ContextStrategy.failureReflection(failures == null ? 3 : failures);
        }
    }

    /**
     * The strategies this section turns on, in the order they run.
     *
     * @param offloadDir the folder offloaded results go to unless {@code offload.dir} says
     *     otherwise (resolved against {@code projectDir}), or null for a temporary folder
     * @param projectDir the folder {@code offload.dir} is relative to, or null for the working
     *     folder
     * @return the strategies
     */
    public List<ContextStrategy> strategies(java.nio.file.Path offloadDir,
            java.nio.file.Path projectDir) {
        List<ContextStrategy> all = new java.util.ArrayList<>();
        if (tools != null) {
            all.add(tools.strategy());
        }
        if (budget != null) {
            all.add(budget.strategy());
        }
        if (trimToolResults != null) {
            all.add(trimToolResults.strategy());
        }
        if (maskObservations != null) {
            all.add(maskObservations.strategy());
        }
        if (offload != null) {
            java.nio.file.Path folder = offload.dir() == null ? offloadDir
                    : projectDir == null ? java.nio.file.Path.of(offload.dir()) : projectDir.resolve(offload.dir());
            all.add(offload.strategy(folder));
        }
        if (slidingWindow != null) {
            all.add(slidingWindow.strategy());
        }
        if (compaction != null) {
            all.add(compaction.strategy());
        }
        if (loopDetection != null) {
            all.add(loopDetection.strategy());
        }
        if (failureReflection != null) {
            all.add(failureReflection.strategy());
        }
        return List.copyOf(all);
    }
}
