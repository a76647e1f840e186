package dev.shelly.agent;

import dev.shelly.chats.Message;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.Usage;
import java.time.Duration;
import java.util.concurrent.CancellationException;

/**
 * Something that happened in an agent's run, for observers (a UI, a log, the engine's event
 * bus). Every event names its {@link Source}: the agent, the agent that delegated to it, the
 * delegation depth, and the run: its id, its parent run's id and its session's id, so events of
 * concurrent runs and sessions can be told apart.
 *
 * <p>Order: {@link AgentStarted}; then {@link MessageAdded} for the system prompt and the input;
 * per iteration {@link CompletionStarted}, any {@link StreamDelta}s, {@link MessageAdded} for the
 * reply, {@link CompletionFinished}, and for its tool calls {@link ToolCallStarted} and
 * {@link ToolCallFinished} (the calls run concurrently, so their events interleave) and a
 * {@link MessageAdded} for the results; finally {@link AgentFinished} or {@link AgentFailed}.
 * In a hand-off group, {@link HandedOff} follows the run of an agent that transferred the
 * conversation, before the next agent's {@link AgentStarted}. An agent with a context policy
 * reports, before each {@link CompletionStarted}, any {@link ContextCompacted},
 * {@link ContextTrimmed} and {@link BudgetWarning} in the order its strategies ran (each summary
 * or note added to the chat first, as a {@link MessageAdded}), then one {@link ContextMeasured}.
 * When the model refuses a request as longer than its window and the policy makes room, those
 * events and a second {@link CompletionStarted} of the same iteration follow the first.
 */
public sealed interface AgentEvent {

    /**
     * Who the event is about.
     *
     * @return the source
     */
    Source source();

    /**
     * The agent and run an event is about. A run makes one and reuses it for all its events.
     *
     * @param agent the agent's name
     * @param parent the name of the agent that delegated to it, or null for a top-level agent
     * @param depth the delegation depth: 0 at the top, 1 for a delegated child, ...
     * @param runId the run's id, or null when not known
     * @param parentRunId the id of the run that started this one, or null for a top-level run
     * @param sessionId the session's id, or null when the run belongs to none
     */
    record Source(String agent, String parent, int depth, String runId, String parentRunId, String sessionId) {
        /**
         * A source without run identity.
         *
         * @param agent the agent's name
         * @param parent the delegating agent's name, or null
         * @param depth the delegation depth
         */
        public Source(String agent, String parent, int depth) {
            this(agent, parent, depth, null, null, null);
        }
    }

    /**
     * A run began.
     *
     * @param source the agent
     */
    record AgentStarted(Source source) implements AgentEvent {}

    /**
     * A run ended with a final message.
     *
     * @param source the agent
     * @param reply the final message
     * @param took how long the run took
     * @param usage the tokens of the run's model calls, delegated children included
     * @param cost what those tokens cost
     */
    record AgentFinished(Source source, Message reply, Duration took, Usage usage, Cost cost) implements AgentEvent {}

    /**
     * A run ended with an exception (a cancellation included).
     *
     * @param source the agent
     * @param error what it ended with
     * @param took how long the run took
     */
    record AgentFailed(Source source, Throwable error, Duration took) implements AgentEvent {
        /**
         * Whether the run was cancelled rather than failed.
         *
         * @return true for a cancellation
         */
        public boolean cancelled() {
            return error instanceof CancellationException;
        }
    }

    /**
     * The agent asks its model for the next reply.
     *
     * @param source the agent
     * @param iteration the iteration, from 1
     * @param request the request as sent, after the links of the interception chain
     */
    record CompletionStarted(Source source, int iteration, ModelRequest request) implements AgentEvent {}

    /**
     * The model replied; the reply was appended to the chat.
     *
     * @param source the agent
     * @param iteration the iteration, from 1
     * @param reply the reply, with the agent's name as sender
     * @param response the model's response, after the links of the interception chain: usage, stop reason,
     *     model and response id
     * @param took how long the model took
     */
    record CompletionFinished(Source source, int iteration, Message reply, ModelResponse response, Duration took)
            implements AgentEvent {
        /**
         * The tokens this completion used, as the model reported them.
         *
         * @return the usage, {@link Usage#ZERO} when the model reported none
         */
        public Usage usage() {
            return response.usage();
        }
    }

    /**
     * A piece of the reply while the model streams it.
     *
     * @param source the agent
     * @param delta the piece
     */
    record StreamDelta(Source source, Delta delta) implements AgentEvent {}

    /**
     * A tool call begins (after the links of the interception chain allowed it).
     *
     * @param source the agent
     * @param call the call as the tool gets it: with a link's rewritten arguments
     */
    record ToolCallStarted(Source source, ToolCall call) implements AgentEvent {}

    /**
     * A tool call ended: done, failed or cancelled; or it was refused (denied by a link, not
     * offered in the turn, or cut off: its arguments are incomplete because the reply stopped at
     * the output limit, and the result says so, with the output tokens and that
     * {@code max_tokens} can be raised), then without a {@link ToolCallStarted} and with a zero
     * duration.
     *
     * @param source the agent
     * @param call the call
     * @param result its result
     * @param took how long it ran
     */
    record ToolCallFinished(Source source, ToolCall call, ToolResult result, Duration took) implements AgentEvent {}

    /**
     * A tool call waits for a person's decision (its {@link Approvals} asked about it): the run
     * will pause once the turn's other calls are done. Answer it with {@link Approvals#answer}
     * (in a session: {@code Session.answer}). Announced once per call, not again when a resumed
     * run finds it still unanswered.
     *
     * @param source the agent that made the call (a delegated child's, when the child asks)
     * @param pending the waiting call, with the id to answer it by
     */
    record DecisionNeeded(Source source, PendingCall pending) implements AgentEvent {}

    /**
     * The agent appended a message to its chat.
     *
     * @param source the agent
     * @param message the message
     */
    record MessageAdded(Source source, Message message) implements AgentEvent {}

    /**
     * An agent of a hand-off group transferred the conversation to another: the group's next
     * agent takes over the shared chat. The chat shows it too: the {@code transfer_to_<to>} call,
     * its result, and the next agent's reply.
     *
     * @param source the agent that handed off
     * @param group the hand-off group's name
     * @param to the agent taking over
     * @param handoffs how many transfers the group's current run has made, this one included
     */
    record HandedOff(Source source, String group, String to, int handoffs) implements AgentEvent {}

    /**
     * How full the model's context is before a model call of an agent with a context policy,
     * after its strategies ran: the input tokens the provider reported for the agent's last call
     * plus the estimated size of what changed since.
     *
     * @param source the agent
     * @param iteration the call's iteration
     * @param tokens the request's tokens
     * @param window the model's context window, or 0 while it is unknown
     */
    record ContextMeasured(Source source, int iteration, long tokens, int window) implements AgentEvent {}

    /**
     * A context strategy summarised the older part of the conversation and cut the model's view
     * to resume after it; the summary is in the chat.
     *
     * @param source the agent
     * @param iteration the call's iteration
     * @param strategy the strategy's name ({@code compaction}, {@code sliding_window}, ...)
     * @param tokensBefore the request's tokens before the cut
     * @param tokensAfter the request's tokens after it
     * @param messagesSummarized how many messages of the view the summary replaced
     */
    record ContextCompacted(Source source, int iteration, String strategy, long tokensBefore, long tokensAfter,
            int messagesSummarized) implements AgentEvent {}

    /**
     * A context strategy shrank tool results in the model's view (trimmed, masked or offloaded
     * them); reported when it changes a result for the first time in the run.
     *
     * @param source the agent
     * @param iteration the call's iteration
     * @param strategy the strategy's name
     * @param tokensBefore the request's tokens before the strategy acted
     * @param tokensAfter the request's tokens after it
     * @param results how many results it changed for the first time
     */
    record ContextTrimmed(Source source, int iteration, String strategy, long tokensBefore, long tokensAfter, int results)
            implements AgentEvent {}

    /**
     * A run has used most of a budget, and the model was told to finish.
     *
     * @param source the agent
     * @param iteration the call's iteration
     * @param budget {@code tokens} or {@code time}
     * @param used how much is used (tokens, or milliseconds)
     * @param limit the limit, in the same unit
     * @param tokensBefore the request's tokens before the note
     * @param tokensAfter the request's tokens with the note
     */
    record BudgetWarning(Source source, int iteration, String budget, long used, long limit, long tokensBefore,
            long tokensAfter) implements AgentEvent {}

    /**
     * A model call failed and is tried again after a wait: reported for the run whose call it is
     * by an engine, whose providers retry transient failures.
     *
     * @param source the agent whose model call it is
     * @param attempt the attempt that failed, from 1
     * @param maxAttempts how many attempts the call may make
     * @param error what the failed attempt ended with
     * @param delay how long the call waits before the next attempt
     */
    record ModelRetried(Source source, int attempt, int maxAttempts, String error, Duration delay) implements AgentEvent {}

    /**
     * A model call moved from one provider to its fallback: reported for the run whose call it is
     * by an engine, whose providers fall back when one cannot answer.
     *
     * @param source the agent whose model call it is
     * @param from the provider that could not answer
     * @param to the provider asked next
     * @param reason why, as a word ({@code rate_limited}, {@code overloaded}, {@code circuit_open}, ...)
     */
    record ModelFellBack(Source source, String from, String to, String reason) implements AgentEvent {}

    /**
     * A tool reported progress while it runs (an MCP server's {@code notifications/progress}).
     *
     * @param source the agent whose tool call it is
     * @param tool the tool's name
     * @param progress how far, increasing
     * @param total the total, or null when unknown
     * @param message what is being done, or null
     */
    record ToolProgress(Source source, String tool, double progress, Double total, String message) implements AgentEvent {}
}
