package dev.shelly.cli;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.AgentListener;
import dev.shelly.agent.PendingCall;
import dev.shelly.chats.ToolCall;
import dev.shelly.engine.Session;
import dev.shelly.engine.Turn;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.Usage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The record {@code shelly run --json} prints: the session and agent, the outcome, the reply, every
 * tool call of the turn with its result (delegated agents' included, in the order they finished),
 * the calls waiting for a decision, the tokens and their cost. Listens to the turn to collect the
 * calls.
 *
 * <pre>{@code
 * {"session": "...", "agent": "assistant", "turn": "...", "outcome": "answered", "reply": "...",
 *  "tool_calls": [{"agent": "assistant", "id": "call_1", "name": "fs_read", "arguments": {...},
 *                  "result": "...", "is_error": false}],
 *  "pending": [], "usage": {"input_tokens": 120, ...}, "cost": {"usd": 0.0004, "unpriced_tokens": 0},
 *  "took_ms": 812}
 * }</pre>
 */
final class TurnRecord implements AgentListener {
    private final Session session;
    private final ReentrantLock lock = new ReentrantLock();
    private final List<ObjectNode> calls = new ArrayList<>();

    TurnRecord(Session session) {
        this.session = session;
    }

    @Override
    public void onEvent(AgentEvent event) {
        if (event instanceof AgentEvent.ToolCallFinished done) {
            ObjectNode call = call(done.source().agent(), done.call());
            call.put("result", done.result().text()).put("is_error", done.result().isError());
            lock.lock();
            try {
                calls.add(call);
            } finally {
                lock.unlock();
            }
        }
    }

    /** The record of a turn that answered or paused. */
    ObjectNode of(Turn turn) {
        ObjectNode record = start(turn.paused() ? "paused" : "answered");
        record.put("turn", turn.id());
        if (turn.paused()) {
            record.putNull("reply");
        } else {
            record.put("reply", turn.text());
        }
        finish(record, turn.pending());
        record.set("usage", usage(turn.usage()));
        record.set("cost", cost(turn.cost()));
        record.put("took_ms", turn.took().toMillis());
        return record;
    }

    /** The record of a turn that failed: what it did before, and the error. */
    ObjectNode failed(Throwable error) {
        ObjectNode record = start("failed");
        record.putNull("reply");
        finish(record, List.of());
        record.put("error", Cli.describe(error));
        return record;
    }

    private ObjectNode start(String outcome) {
        ObjectNode record = Shown.JSON.createObjectNode();
        record.put("session", session.id()).put("agent", session.entryAgent()).put("outcome", outcome);
        return record;
    }

    private void finish(ObjectNode record, List<PendingCall> pending) {
        ArrayNode done = record.putArray("tool_calls");
        lock.lock();
        try {
            calls.forEach(done::add);
        } finally {
            lock.unlock();
        }
        ArrayNode waiting = record.putArray("pending");
        for (PendingCall p : pending) {
            // The entry of a turn a crash cut short names no call.
            ObjectNode call = p.call() == null ? Shown.JSON.createObjectNode().put("agent", p.agent())
                    : call(p.agent(), p.call());
            call.put("id", p.id()).put("kind", p.kind().name().toLowerCase(Locale.ROOT)).put("reason", p.reason());
            waiting.add(call);
        }
    }

    private static ObjectNode call(String agent, ToolCall call) {
        ObjectNode node = Shown.JSON.createObjectNode();
        node.put("agent", agent).put("id", call.id()).put("name", call.name());
        JsonNode args = Shown.tree(call.arguments());
        if (args.isMissingNode()) {
            node.put("arguments", call.arguments());
        } else {
            node.set("arguments", args);
        }
        return node;
    }

    private static ObjectNode usage(Usage usage) {
        return Shown.JSON.createObjectNode().put("input_tokens", usage.inputTokens())
                .put("output_tokens", usage.outputTokens()).put("cache_read_tokens", usage.cacheReadTokens())
                .put("cache_write_tokens", usage.cacheWriteTokens()).put("total_tokens", usage.totalTokens());
    }

    private static ObjectNode cost(Cost cost) {
        return Shown.JSON.createObjectNode().put("usd", cost.usd()).put("unpriced_tokens", cost.unpricedTokens());
    }
}
