package dev.shelly.agent;

import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Runs the tool calls of one reply, each on its own virtual thread, and appends one tool message
 * answering every call in order, also when the turn is cancelled.
 */
final class ToolTurn {
    private ToolTurn() {}

    /** Runs the calls and returns the tool message appended, or throws when cancelled. */
    static Message run(Agent agent, List<ToolCall> calls, AgentTools tools, ToolContext context) {
        int n = calls.size();
        AtomicReferenceArray<ToolResult> results = new AtomicReferenceArray<>(n);
        long[] starts = new long[n];
        boolean cancelled = Thread.currentThread().isInterrupted();
        if (!cancelled) {
            cancelled = execute(agent, calls, tools, context, results, starts);
        }
        List<Part> parts = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ToolCall call = calls.get(i);
            if (results.get(i) == null && results.compareAndSet(i, null, cancelledResult(call)) && starts[i] != 0
                    && agent.observed()) {
                agent.emit(new AgentEvent.ToolCallFinished(agent.source(), call, results.get(i), Agent.since(starts[i])));
            }
            parts.add(results.get(i));
        }
        Message answered = new Message(agent.name(), Role.TOOL, parts);
        agent.append(answered);
        if (cancelled) {
            Thread.currentThread().interrupt();
            throw agent.cancelled();
        }
        return answered;
    }

    /** Runs the calls and waits for them; returns whether the wait was cancelled. */
    private static boolean execute(Agent agent, List<ToolCall> calls, AgentTools tools, ToolContext context,
            AtomicReferenceArray<ToolResult> results, long[] starts) {
        int n = calls.size();
        CountDownLatch done = new CountDownLatch(n);
        Thread[] threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            int slot = i;
            ToolCall call = calls.get(i);
            if (agent.observed()) {
                agent.emit(new AgentEvent.ToolCallStarted(agent.source(), call));
            }
            long start = System.nanoTime();
            starts[i] = start == 0 ? 1 : start;
            threads[i] = Thread.ofVirtual().start(() -> {
                try {
                    ToolResult result = tools.call(call, context);
                    if (results.compareAndSet(slot, null, result) && agent.observed()) {
                        agent.emit(new AgentEvent.ToolCallFinished(agent.source(), call, result, Agent.since(start)));
                    }
                } finally {
                    done.countDown();
                }
            });
        }
        try {
            done.await();
            return false;
        } catch (InterruptedException e) {
            for (Thread t : threads) {
                t.interrupt();
            }
            try {
                done.await(TimeUnit.NANOSECONDS.convert(agent.cancelGrace()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException again) {
                // Interrupted twice: stop waiting; what has not finished is answered as cancelled.
            }
            return true;
        }
    }

    static ToolResult cancelledResult(ToolCall call) {
        return ToolResult.error(call.id(), "tool '" + call.name() + "' was cancelled before it finished");
    }
}
