package dev.shelly.agent.context;

import dev.shelly.modeladapter.Completer;
import dev.shelly.tools.ToolBox;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One step of context management, run on the model's view before every model call of an agent
 * with a {@link ContextPolicy}. The policy runs its strategies in the order given; each sees the
 * view as the ones before it left it.
 *
 * <p>A strategy changes only the {@link ContextView}: the messages the model sees and the tools
 * it is offered. What it adds for good (a summary, a note the model reads) goes through the view
 * into the chat, so the session's transcript records it. Strategies are immutable and may be
 * shared between agents; what one must remember during a run it keeps in
 * {@link ContextView#state}.
 *
 * <p>The built-in strategies are made here, each named as in events and in the engine's config:
 *
 * <pre>{@code
 * ContextPolicy.builder()
 *         .strategies(ContextStrategy.offload(4_000), ContextStrategy.trimToolResults(2, 1_000),
 *                 ContextStrategy.compaction(0.8), ContextStrategy.loopDetection(3),
 *                 ContextStrategy.failureReflection(3), ContextStrategy.tokenBudget(500_000))
 *         .build();
 * }</pre>
 *
 * A strategy of one's own implements {@link #name()} and {@link #apply(ContextView)}.
 */
public interface ContextStrategy {

    /**
     * The strategy's name, as in events and in the engine's config ({@code compaction},
     * {@code trim_tool_results}, ...).
     *
     * @return the name
     */
    String name();

    /**
     * Shapes the view before a model call.
     *
     * @param view the model's view of this call
     */
    void apply(ContextView view);

    /**
     * Tools the strategy offers the model, such as {@code recall} for offloaded results.
     *
     * @return the toolbox, or empty when the strategy offers none
     */
    default Optional<ToolBox> tools() {
        return Optional.empty();
    }

    /**
     * Whether the strategy may replace messages of the view ({@link ContextView#replace}). During
     * a run, each call's view extends the previous call's as its strategies left it; that holds
     * only while no strategy that runs before the one that replaced messages may replace one too
     * (it would then read the other's rewrite instead of the chat's message). A strategy that
     * never replaces a message (one that compacts, adds notes, checks budgets or scopes the
     * tools) says so here, and the views stay extendable.
     *
     * @return false when the strategy never calls {@link ContextView#replace}; true unless
     *     overridden
     */
    default boolean replacesMessages() {
        return true;
    }

    // ------------------------------------------------------------------ the built-in strategies

    /**
     * {@code compaction} at 0.8 of the window, keeping 0.3 of it for the recent turns: see
     * {@link #compaction(double, double, Completer, String)}.
     *
     * @return the strategy
     */
    static ContextStrategy compaction() {
        return new Compaction(Compaction.DEFAULT_THRESHOLD, Compaction.DEFAULT_KEEP_RECENT, null,
                Compaction.DEFAULT_INSTRUCTIONS);
    }

    /**
     * {@code compaction} at a share of the window, keeping 0.3 of it (or half the threshold,
     * when that is less) for the recent turns: see
     * {@link #compaction(double, double, Completer, String)}.
     *
     * @param threshold the share; above 0, at most 1
     * @return the strategy
     */
    static ContextStrategy compaction(double threshold) {
        return new Compaction(threshold, Math.min(Compaction.DEFAULT_KEEP_RECENT, threshold / 2), null,
                Compaction.DEFAULT_INSTRUCTIONS);
    }

    /**
     * {@code compaction}: when the request passes a share of the model's window, summarises the
     * older part of the conversation with a model call and continues from the system prompt, the
     * summary and the recent turns. The summary covers the previous one too, so nothing
     * summarised before is forgotten. The cut never parts a tool call from its result.
     *
     * <p>Needs a window ({@link ContextPolicy.Builder#window}, the table, or the one a provider
     * names when it refuses a request as too long); until one is known it does nothing. After
     * such a refusal it compacts whatever the share ({@link ContextView#overflowed()}). Config:
     * {@code compaction: {threshold: 0.8, keep_recent: 0.3}}.
     *
     * @param threshold the share of the window past which the view is compacted; above 0, at
     *     most 1
     * @param keepRecent the share of the window the recent turns may keep; above 0, below
     *     {@code threshold}
     * @param completer the model that summarises, or null for the policy's summariser
     * @param instructions the summariser's system prompt, or null for the default one (keep the
     *     task, requests, decisions, facts, names, errors and what is left to do)
     * @return the strategy
     * @throws IllegalArgumentException when a share is out of range or the instructions are blank
     */
    static ContextStrategy compaction(double threshold, double keepRecent, Completer completer, String instructions) {
        return new Compaction(threshold, keepRecent, completer,
                instructions == null ? Compaction.DEFAULT_INSTRUCTIONS : instructions);
    }

    /**
     * {@code sliding_window} keeping {@code keepTurns} turns, sliding by half of them, with
     * summaries: see {@link #slidingWindow(int, int, boolean, Completer, String)}.
     *
     * @param keepTurns the turns kept; at least 1
     * @return the strategy
     */
    static ContextStrategy slidingWindow(int keepTurns) {
        return new SlidingWindow(keepTurns, Math.max(1, keepTurns / 2), true, null, Compaction.DEFAULT_INSTRUCTIONS);
    }

    /**
     * {@code sliding_window}: keeps the model's view to the last turns. Once the conversation
     * holds {@code keepTurns + stride} turns (a turn starts at each reply of the model), the
     * oldest {@code stride} turns or more leave the view, and an incremental summary (the
     * previous one plus what left) takes their place; without summaries a line saying that
     * earlier messages are out of view does (or the summary another strategy wrote before).
     * Needs no window. When the model refused the request as too long
     * ({@link ContextView#overflowed()}), the window slides as soon as one turn is beyond the
     * kept ones. Config: {@code sliding_window: {keep_turns: 20, stride: 10, summarize: true}}.
     *
     * @param keepTurns how many of the newest turns stay in view; at least 1
     * @param stride how many turns may gather beyond them before the window slides; at least 1
     * @param summarize whether what leaves the view is summarised by a model call
     * @param completer the model that summarises, or null for the policy's summariser
     * @param instructions the summariser's system prompt, or null for compaction's default
     * @return the strategy
     * @throws IllegalArgumentException when a count is below 1 or the instructions are blank
     */
    static ContextStrategy slidingWindow(int keepTurns, int stride, boolean summarize, Completer completer,
            String instructions) {
        return new SlidingWindow(keepTurns, stride, summarize, completer,
                instructions == null ? Compaction.DEFAULT_INSTRUCTIONS : instructions);
    }

    /**
     * {@code trim_tool_results}: cuts old tool results to a length in the model's view. Every
     * tool message but the newest {@code keepRecent} has each result's text cut to
     * {@code maxChars}, with a line saying how much was cut. The chat keeps the whole result.
     * When the model refused the request as too long ({@link ContextView#overflowed()}), the
     * newest results are cut as well. Config:
     * {@code trim_tool_results: {keep_recent: 2, max_chars: 1000}}.
     *
     * @param keepRecent how many of the newest tool messages stay whole; at least 0
     * @param maxChars how many characters an old result keeps; at least 1
     * @return the strategy
     * @throws IllegalArgumentException when a count is out of range
     */
    static ContextStrategy trimToolResults(int keepRecent, int maxChars) {
        return new ToolResultTrimming(keepRecent, maxChars);
    }

    /**
     * {@code mask_observations} with the default placeholder ({@code [old tool output omitted to
     * save context; call the tool again if you need it]}): see
     * {@link #maskObservations(int, String)}.
     *
     * @param keepRecent how many of the newest tool messages stay whole; at least 0
     * @return the strategy
     */
    static ContextStrategy maskObservations(int keepRecent) {
        return new ObservationMasking(keepRecent, ObservationMasking.DEFAULT_PLACEHOLDER);
    }

    /**
     * {@code mask_observations}: masks old observations in the model's view. Every tool message
     * but the newest {@code keepRecent} has each result replaced by a short placeholder, while
     * the model's own reasoning (its text and tool calls) stays. The chat keeps the whole
     * result. Config: {@code mask_observations: {keep_recent: 3, placeholder: "..."}}.
     *
     * @param keepRecent how many of the newest tool messages stay whole; at least 0
     * @param placeholder what the model reads instead of an old result, or null for the default
     * @return the strategy
     * @throws IllegalArgumentException when the count is negative or the placeholder blank
     */
    static ContextStrategy maskObservations(int keepRecent, String placeholder) {
        return new ObservationMasking(keepRecent, placeholder == null ? ObservationMasking.DEFAULT_PLACEHOLDER : placeholder);
    }

    /**
     * {@code offload} of results over {@code minChars} into a temporary folder made on first use,
     * keeping a preview of at most 500 characters and pages of at most 2000 (each at most half of
     * {@code minChars}): see {@link #offload(int, int, int, Path)}.
     *
     * @param minChars the length from which a result is offloaded; at least 2
     * @return the strategy
     */
    static ContextStrategy offload(int minChars) {
        return new Offload(minChars);
    }

    /**
     * {@code offload}: moves large tool results out of the model's view into files, and offers
     * the {@code recall} tool to read them back a page at a time. In the view a result over
     * {@code minChars} becomes its first {@code previewChars} characters and a line naming its
     * key and pages; the file holds the whole text (written again from the chat when missing,
     * say after a resume elsewhere). The chat keeps the whole result. Results of {@code recall}
     * itself are never offloaded. Config:
     * {@code offload: {min_chars: 4000, preview_chars: 500, page_chars: 2000, dir: ...}}.
     *
     * @param minChars the length from which a result is offloaded; above {@code pageChars}
     * @param previewChars the characters of the result the view keeps; at least 0, below
     *     {@code minChars}
     * @param pageChars the characters of one {@code recall} page; at least 1, below
     *     {@code minChars}
     * @param dir the folder the results go to (made when missing), or null for a temporary one
     * @return the strategy
     * @throws IllegalArgumentException naming the setting that is out of range
     */
    static ContextStrategy offload(int minChars, int previewChars, int pageChars, Path dir) {
        return new Offload(minChars, previewChars, pageChars, dir);
    }

    /**
     * {@code loop_detection}: notices the model repeating itself. When its last {@code repeats}
     * replies made the same tool calls with the same arguments (compared as JSON, so spacing and
     * key order do not matter), a note the model reads says so before the next call. After a
     * note, the count starts again. Config: {@code loop_detection: {repeats: 3}}.
     *
     * @param repeats how many identical replies in a row make a loop; at least 2
     * @return the strategy
     * @throws IllegalArgumentException when {@code repeats} is below 2
     */
    static ContextStrategy loopDetection(int repeats) {
        return new LoopDetection(repeats);
    }

    /**
     * {@code failure_reflection}: notices tool calls failing in a row. When the last
     * {@code failures} tool results were all errors, a note the model reads asks it to stop and
     * reflect before the next call. After a note, the count starts again. Config:
     * {@code failure_reflection: {failures: 3}}.
     *
     * @param failures how many failed results in a row ask for reflection; at least 1
     * @return the strategy
     * @throws IllegalArgumentException when {@code failures} is below 1
     */
    static ContextStrategy failureReflection(int failures) {
        return new FailureReflection(failures);
    }

    /**
     * A token {@code budget}, the model warned at 0.8 of it: see
     * {@link #budget(long, Duration, double)}.
     *
     * @param maxTokens the most tokens the run may use; at least 1
     * @return the strategy
     */
    static ContextStrategy tokenBudget(long maxTokens) {
        if (maxTokens < 1) {
            throw new IllegalArgumentException("Budget max_tokens must be at least 1, was " + maxTokens);
        }
        return new Budget(maxTokens, null, Budget.DEFAULT_WARN_AT);
    }

    /**
     * A time {@code budget}, the model warned at 0.8 of it: see
     * {@link #budget(long, Duration, double)}.
     *
     * @param maxTime the longest the run may take
     * @return the strategy
     */
    static ContextStrategy timeBudget(Duration maxTime) {
        return new Budget(0, maxTime, Budget.DEFAULT_WARN_AT);
    }

    /**
     * {@code budget}: token and time budgets for a run. Before each model call: once the run has
     * used {@code warnAt} of a budget the model reads a note telling it to finish (once per
     * budget and run), and a {@link dev.shelly.agent.AgentEvent.BudgetWarning} is reported; once
     * a budget is spent the run stops with a {@link BudgetExceededException}. Tokens count every
     * kind the run used, its delegated children included. Config:
     * {@code budget: {max_tokens: 500000, max_time: 10m, warn_at: 0.8}}.
     *
     * @param maxTokens the most tokens the run may use; 0 for no token budget
     * @param maxTime the longest the run may take, or null for no time budget
     * @param warnAt the share of a budget at which the model is warned; above 0, below 1
     * @return the strategy
     * @throws IllegalArgumentException when a limit is out of range, or neither is set
     */
    static ContextStrategy budget(long maxTokens, Duration maxTime, double warnAt) {
        return new Budget(maxTokens, maxTime, warnAt);
    }

    /**
     * A {@code tool_scope} that offers only these tools: see {@link #toolScope(List, List)}.
     *
     * @param names names or prefixes ending in {@code *}
     * @return the strategy
     */
    static ContextStrategy allowTools(String... names) {
        return new ToolScope(List.of(names), List.of());
    }

    /**
     * A {@code tool_scope} that offers every tool but these: see {@link #toolScope(List, List)}.
     *
     * @param names names or prefixes ending in {@code *}
     * @return the strategy
     */
    static ContextStrategy denyTools(String... names) {
        return new ToolScope(List.of(), List.of(names));
    }

    /**
     * {@code tool_scope}: scopes the tools offered to the model: only those {@code allow} names
     * (all when it is empty), less those {@code deny} names. A name ending in {@code *} matches
     * every tool it starts. A call to a tool left out is refused with a result the model reads.
     * Config: {@code tools: {allow: ["read_*", recall], deny: [delete_file]}}.
     *
     * @param allow the tools offered; empty or null for all
     * @param deny the tools never offered; empty or null for none
     * @return the strategy
     * @throws IllegalArgumentException when both are empty, or a name is blank (or {@code *} in
     *     {@code deny})
     */
    static ContextStrategy toolScope(List<String> allow, List<String> deny) {
        return new ToolScope(allow, deny);
    }
}
