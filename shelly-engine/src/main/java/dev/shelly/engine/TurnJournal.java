package dev.shelly.engine;

import dev.shelly.agent.RunContext;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.agent.ToolDecision;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.storage.spi.SessionStore;

/**
 * The outermost link of a session turn's chain: records each step of the turn in the session's
 * journal before the turn goes on from it, and, for a turn taken up after a crash, answers the
 * steps the journal holds from it instead of taking them again.
 * <ul>
 *   <li>A run started under another is recorded ({@code child}) before it starts.
 *   <li>A model response is recorded ({@code model}) once received, before the loop reads it.
 *   <li>A tool call is recorded as {@code started} before the rest of the chain and the handler
 *       run, and as {@code finished} with its result after they return.
 * </ul>
 * Each entry is durable when {@link SessionStore.Lease#append} returns; when it cannot be written,
 * the step fails and does not take effect. Being outermost, the link records what the loop reads
 * (after every other link), and a replayed step passes through no other link.
 */
final class TurnJournal implements RunInterceptor {
    private final SessionStore.Lease lease;
    private final JournalEntries entries;
    /** The journal read back, for a turn taken up after a crash; else null. */
    private final Replay replay;

    TurnJournal(SessionStore.Lease lease, JournalEntries entries, Replay replay) {
        this.lease = lease;
        this.entries = entries;
        this.replay = replay;
    }

    Replay replay() {
        return replay;
    }

    private void append(String entry) {
        lease.append(entry);
    }

    @Override
    public Message interceptRun(RunChain chain) {
        RunContext context = chain.context();
        String run = context.runId().orElseThrow();
        String parent = context.parentRunId().orElse(null);
        if (replay != null) {
            replay.started(run, parent);
        }
        if (parent != null && (replay == null || !replay.recorded(run))) {
            String path = context.path();
            append(entries.child(run, parent, delegateCall(path), context.agent().orElse(chain.agent().name()), path));
        }
        return chain.proceed();
    }

    /** The {@code delegate} call a child's path names: {@code .../call_2/0} is call {@code call_2}'s task 0. */
    private static String delegateCall(String path) {
        int last = path.lastIndexOf('/');
        if (last <= 0 || !path.substring(last + 1).chars().allMatch(Character::isDigit)) {
            return null;
        }
        int before = path.lastIndexOf('/', last - 1);
        return path.substring(before + 1, last);
    }

    @Override
    public ModelResponse interceptModelCall(ModelChain chain) {
        ModelCall call = chain.call();
        RunContext context = call.run();
        String run = context.runId().orElseThrow();
        if (replay != null) {
            ModelResponse recorded = replay.next(run);
            if (recorded != null) {
                return recorded;
            }
            String stopped = replay.stopped(run);
            if (stopped != null) {
                throw new Replay.Ended(stopped);
            }
        }
        ModelResponse response = chain.proceed(call.request());
        append(entries.model(run, context.agent().orElse("?"), response));
        return response;
    }

    @Override
    public ToolDecision decideToolCall(DecisionChain chain) {
        ToolInvocation invocation = chain.invocation();
        if (replay != null && replay.journal.started(invocation.run().runId().orElseThrow(), invocation.call().id()) != null) {
            // Decided before the crash, and started: what it became is the journal's to say.
            return ToolDecision.ALLOW;
        }
        return chain.proceed(invocation.call());
    }

    @Override
    public ToolResult interceptToolCall(ToolChain chain) {
        ToolInvocation invocation = chain.invocation();
        ToolCall call = invocation.call();
        RunContext context = invocation.run();
        String run = context.runId().orElseThrow();
        if (replay != null) {
            ToolResult done = replay.journal.finished(run, call.id());
            if (done != null) {
                return done;
            }
            if (replay.journal.started(run, call.id()) != null) {
                if (replay.verdict(run, call.id()) == Replay.Verdict.RERUN) {
                    return finish(run, call.id(), chain.proceed(call));
                }
                return finish(run, call.id(), Replay.unknownResult(call.name(), call.id()));
            }
            String stopped = replay.stopped(run);
            if (stopped != null) {
                return ToolResult.error(call.id(), "tool '" + call.name() + "' was not run: " + stopped);
            }
        }
        append(entries.started(run, context.agent().orElse("?"), call, invocation.idempotencyKey(),
                invocation.idempotent()));
        return finish(run, call.id(), chain.proceed(call));
    }

    private ToolResult finish(String run, String call, ToolResult result) {
        append(entries.finished(run, call, result));
        return result;
    }

    @Override
    public String toString() {
        return "session journal";
    }
}
