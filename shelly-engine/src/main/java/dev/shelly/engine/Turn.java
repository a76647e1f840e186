package dev.shelly.engine;

import dev.shelly.agent.PendingCall;
import dev.shelly.chats.Message;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.Usage;
import java.time.Duration;
import java.util.List;

/**
 * One turn of a {@link Session}: the entry agent's answer, or the decisions it paused for, and
 * what it took.
 *
 * @param id the turn's id, also in the logging MDC as {@value Session#MDC_TURN} while it ran
 * @param reply the entry agent's final message
 * @param usage the tokens every model call of the turn used, delegated agents included
 * @param cost what those calls cost by the engine's price table; tokens of models it does not
 *     price are counted in {@link Cost#unpricedTokens()}
 * @param took how long the turn ran, from its start (not from when it was queued) to its save
 * @param pending the tool calls the turn paused for, waiting for a decision (answer them with
 *     {@link Session#answer}, then {@link Session#proceed}); empty for an answered turn, whose
 *     {@code reply} is then the final answer (for a paused turn it is the last message of the chat)
 */
public record Turn(String id, Message reply, Usage usage, Cost cost, Duration took, List<PendingCall> pending) {
    /** Validates the fields. */
    public Turn {
        if (id == null || reply == null || usage == null || cost == null || took == null || pending == null) {
            throw new IllegalArgumentException("Turn fields must not be null");
        }
        pending = List.copyOf(pending);
    }

    /**
     * An answered turn.
     *
     * @param id the turn's id
     * @param reply the final message
     * @param usage the tokens used
     * @param cost what they cost
     * @param took how long it ran
     */
    public Turn(String id, Message reply, Usage usage, Cost cost, Duration took) {
        this(id, reply, usage, cost, took, List.of());
    }

    /**
     * Whether the turn paused for a decision.
     *
     * @return true when {@link #pending()} is not empty
     */
    public boolean paused() {
        return !pending.isEmpty();
    }

    /**
     * The text of the answer.
     *
     * @return the reply's text parts, joined
     */
    public String text() {
        return reply.text();
    }
}
