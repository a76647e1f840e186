package dev.shelly.agent;

import dev.shelly.agent.internal.Approver;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import java.time.Instant;
import java.util.List;

/**
 * A run's context's {@link Approvals} as the loop asks them ({@link Approver}): the approvals'
 * entry points for a run are package-private, so the agent hands the loop this view of them.
 *
 * @param approvals the approvals
 */
record RunApprover(Approvals approvals) implements Approver {

    @Override
    public Instant now() {
        return approvals.now();
    }

    @Override
    public String id(String path, String callId) {
        return Approvals.id(path, callId);
    }

    @Override
    public Approvals.Frame frame(String path) {
        return approvals.frame(path);
    }

    @Override
    public Answer take(String id) {
        return approvals.take(id);
    }

    @Override
    public ToolDecision decide(String agent, ToolCall call) {
        return approvals.decide(agent, call);
    }

    @Override
    public ToolDecision decision(Answer answer, ToolCall call) {
        return Approvals.decision(answer, call);
    }

    @Override
    public List<PendingCall> pause(String path, String agent, List<Message> chat, List<ToolResult> held,
            List<PendingCall> waiting, List<ToolCall> delegated) {
        return approvals.pause(path, agent, chat, held, waiting, delegated);
    }

    @Override
    public List<PendingCall> pending() {
        return approvals.pending();
    }

    @Override
    public void finished(String path, String agent, String text) {
        approvals.finished(path, agent, text);
    }

    @Override
    public void clear(String path) {
        approvals.clear(path);
    }

    @Override
    public void clearPaused() {
        approvals.clearPaused();
    }

    /** The approvals of a context as the loop asks them, or null when it has none. */
    static Approver of(RunContext context) {
        Approvals approvals = context.approvals().orElse(null);
        return approvals == null ? null : new RunApprover(approvals);
    }
}
