package dev.shelly.agent.internal;

import dev.shelly.agent.Answer;
import dev.shelly.agent.Approvals;
import dev.shelly.agent.PendingCall;
import dev.shelly.agent.ToolDecision;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import java.time.Instant;
import java.util.List;

/**
 * Internal, not API. What a run asks of its context's {@link Approvals}: the policy's decision
 * about a call (the innermost of the decision chain), the answers given to waiting calls, and
 * the frames a paused turn keeps. The agent's package hands the loop one per run.
 */
public interface Approver {

    /**
     * {@return the approvals' clock's time} When a call begins to wait.
     */
    Instant now();

    /**
     * The key of a call in the paused tree: the call id after the path of its delegation.
     *
     * @param path the run's path ({@code ""} at the top)
     * @param callId the call's id
     * @return the key
     */
    String id(String path, String callId);

    /**
     * The frame a paused run at a path keeps.
     *
     * @param path the run's path
     * @return the frame, or null
     */
    Approvals.Frame frame(String path);

    /**
     * Takes the answer to a waiting call, once.
     *
     * @param id the call's key
     * @return the answer, or null
     */
    Answer take(String id);

    /**
     * What the policy and the remembered decisions say about a call that no answer decided.
     *
     * @param agent the agent making the call
     * @param call the call
     * @return the decision
     */
    ToolDecision decide(String agent, ToolCall call);

    /**
     * The decision an answer makes about a call.
     *
     * @param answer the answer
     * @param call the call
     * @return the decision
     */
    ToolDecision decision(Answer answer, ToolCall call);

    /**
     * Keeps a paused run: what ran, what waits, and the delegated calls to run again.
     *
     * @param path the run's path
     * @param agent the run's agent
     * @param chat a delegated child's chat to resume from, else empty
     * @param held the results of the calls that ran
     * @param waiting the calls that wait for a decision
     * @param delegated the {@code delegate} calls whose children wait
     * @return the calls that began to wait now
     */
    List<PendingCall> pause(String path, String agent, List<Message> chat, List<ToolResult> held,
            List<PendingCall> waiting, List<ToolCall> delegated);

    /**
     * {@return every call waiting for a decision}
     */
    List<PendingCall> pending();

    /**
     * Keeps the answer of a delegated child that finished while a sibling paused.
     *
     * @param path the child's path
     * @param agent the child's agent
     * @param text its answer
     */
    void finished(String path, String agent, String text);

    /**
     * Forgets a run's frame and those of the children under it.
     *
     * @param path the run's path
     */
    void clear(String path);

    /** Forgets every paused frame: a paused turn was ended without running what waits. */
    void clearPaused();
}
