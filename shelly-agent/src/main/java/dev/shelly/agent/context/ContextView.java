package dev.shelly.agent.context;

import dev.shelly.chats.Message;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.Usage;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;

/**
 * The model's view of one call, as the {@link ContextStrategy strategies} shape it: the system
 * prompt at index 0, then the summary of what was compacted (when there is one), then the
 * conversation since. Changing a message here changes only what the model sees; {@link #compact}
 * and {@link #note} are the two changes that also reach the chat.
 *
 * <p>A view belongs to one model call of one run, on the run's thread; it is not thread-safe.
 */
public interface ContextView {

    /**
     * The agent whose call this is.
     *
     * @return the agent's name
     */
    String agent();

    /**
     * The call's iteration in the run, from 1.
     *
     * @return the iteration
     */
    int iteration();

    /**
     * The messages the model will see, the system prompt first.
     *
     * @return an unmodifiable snapshot
     */
    List<Message> messages();

    /**
     * How many messages the view holds.
     *
     * @return the size, at least 1 (the system prompt)
     */
    int size();

    /**
     * One message of the view.
     *
     * @param index from 0 (the system prompt)
     * @return the message
     */
    Message message(int index);

    /**
     * Replaces what the model sees of one conversation message, for example a tool result cut
     * short. The replacement must keep the message's role and, for tool calls and results, their
     * ids, so that every call still has its result.
     *
     * @param index a conversation message, at or after {@link #firstMessage()}
     * @param message what the model sees instead
     * @throws IllegalArgumentException when the index is not a conversation message or the
     *     replacement changes the role or the tool-call ids
     */
    void replace(int index, Message message);

    /**
     * Where the conversation starts: after the system prompt and the summary, if any.
     *
     * @return the index of the first conversation message; {@link #size()} when there is none
     */
    int firstMessage();

    /**
     * Whether the model refused this call's previous request as longer than its context window:
     * the view is being shaped again, once, before the call is tried again. A strategy that acts
     * only past a threshold acts now ({@code compaction} compacts, {@code trim_tool_results}
     * trims the newest results too, {@code sliding_window} slides as soon as a turn is beyond the
     * kept ones); {@link #window()} is then at most what the provider said it is.
     *
     * @return true while the view is shaped again after a context overflow
     */
    default boolean overflowed() {
        return false;
    }

    /**
     * How many messages at the start of this view are the previous call's, exactly as the
     * strategies left them then: during a run, each view extends the previous call's shaped view
     * with what the chat gained since, unless something forced it to be built from the chat
     * again (a new run, a compaction, two strategies rewriting messages). A strategy that
     * rewrites messages one at a time may then start from where it stopped instead of reading
     * the whole view again.
     *
     * @return the count; 0 when the view was built from the chat
     */
    default int carriedOver() {
        return 0;
    }

    /**
     * Whether the view may be cut so that it resumes at {@code index}: a conversation message
     * after the first that is not a tool message, so that no tool call is parted from its
     * result and both provider formats stay valid.
     *
     * @param index the index
     * @return true when {@link #compact} accepts it
     */
    boolean canCutAt(int index);

    /**
     * The summary the view opens with, the text a strategy wrote, without its heading.
     *
     * @return the summary, or empty when nothing was compacted yet
     */
    Optional<String> summary();

    /**
     * The tools the model will be offered.
     *
     * @return an unmodifiable list
     */
    List<ToolDefinition> tools();

    /**
     * Sets the tools the model will be offered; a call to a tool left out is refused.
     *
     * @param tools the tools
     */
    void tools(List<ToolDefinition> tools);

    /**
     * How many tokens the request holds as the view stands: the input tokens the provider
     * reported for the agent's last call, plus the estimated size of what changed since.
     *
     * @return the tokens
     */
    long tokens();

    /**
     * The estimated tokens of one message.
     *
     * @param message the message
     * @return the estimate
     */
    long tokens(Message message);

    /**
     * The model's context window: the policy's, else the one the table gives for the model the
     * last response named.
     *
     * @return the window in tokens, or empty while it is unknown
     */
    OptionalInt window();

    /**
     * What the run has used so far, its delegated children included.
     *
     * @return the usage
     */
    Usage usage();

    /**
     * How long the run has been going.
     *
     * @return the time since the run started
     */
    Duration elapsed();

    /**
     * Asks a model to summarise conversation messages, the previous summary included, for the
     * agent to continue from. The call's usage counts in the run's.
     *
     * @param messages the view's messages to summarise, in order
     * @param completer the model to ask, or null for the policy's summariser (by default the
     *     agent's own model)
     * @param instructions the summariser's system prompt
     * @return the summary
     */
    String summarize(List<Message> messages, Completer completer, String instructions);

    /**
     * Cuts the view so that it resumes at {@code from}: the conversation before it gives way to
     * {@code summary}. The summary is appended to the chat (sender
     * {@value ContextPolicy#SENDER}, marked in its metadata with where the view resumes), so a
     * saved session resumes from this view; a {@link dev.shelly.agent.AgentEvent.ContextCompacted}
     * reports the tokens before and after.
     *
     * @param from where the view resumes; {@link #canCutAt} must hold
     * @param summary the summary of everything before, the previous summary included
     * @param strategy the strategy's name
     * @throws IllegalArgumentException when the view may not be cut there
     */
    void compact(int from, String summary, String strategy);

    /**
     * Appends a note the model reads (a user message, sender {@value ContextPolicy#SENDER}) to
     * the chat and to the view.
     *
     * @param text the note
     * @param strategy the strategy's name, kept in the note's metadata
     */
    void note(String text, String strategy);

    /**
     * Reports that a strategy shrank the view without cutting it (trimming, masking,
     * offloading), as a {@link dev.shelly.agent.AgentEvent.ContextTrimmed} with the tokens
     * before and now.
     *
     * @param strategy the strategy's name
     * @param tokensBefore the view's tokens before the strategy acted
     * @param results how many tool results it changed
     */
    void trimmed(String strategy, long tokensBefore, int results);

    /**
     * Warns the model that a budget is nearly spent: appends {@code note} as a
     * {@linkplain #note note} and reports a {@link dev.shelly.agent.AgentEvent.BudgetWarning}.
     *
     * @param budget what runs out ({@code tokens} or {@code time})
     * @param used how much is used (tokens, or milliseconds)
     * @param limit the limit, in the same unit
     * @param note what the model reads
     * @param strategy the strategy's name
     */
    void budgetWarning(String budget, long used, long limit, String note, String strategy);

    /**
     * What a strategy remembers during one run, made on first use.
     *
     * @param owner the strategy
     * @param initial makes the state
     * @param <T> the state's type
     * @return the run's state for this strategy
     */
    <T> T state(ContextStrategy owner, Supplier<T> initial);
}
