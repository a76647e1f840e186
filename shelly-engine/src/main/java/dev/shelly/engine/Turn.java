package dev.shelly.engine;

import dev.shelly.chats.Message;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.Usage;
import java.time.Duration;

/**
 * One answered turn of a {@link Session}: the entry agent's answer and what it took.
 *
 * @param id the turn's id, also in the logging MDC as {@value Session#MDC_TURN} while it ran
 * @param reply the entry agent's final message
 * @param usage the tokens every model call of the turn used, delegated agents included
 * @param cost what those calls cost by the engine's price table; tokens of models it does not
 *     price are counted in {@link Cost#unpricedTokens()}
 * @param took how long the turn ran, from its start (not from when it was queued) to its save
 */
public record Turn(String id, Message reply, Usage usage, Cost cost, Duration took) {
    /** Validates the fields. */
    public Turn {
        if (id == null || reply == null || usage == null || cost == null || took == null) {
            throw new IllegalArgumentException("Turn fields must not be null");
        }
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
