package dev.shelly.console.internal;

import dev.shelly.agent.Answer;
import dev.shelly.agent.PendingCall;
import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import dev.shelly.engine.Turn;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * What a person does in the page: answers a decision (and, once every waiting call of the turn
 * is answered, lets the turn go on), cancels one run or the whole turn. Each acts through a
 * handle of its own on the session, held until the turn it started has ended.
 */
final class Steer {
    private static final Logger LOG = LoggerFactory.getLogger(Steer.class);

    private final Engine engine;
    private final Hub hub;
    /** The calls answered through the console, by session, until their turn goes on. */
    private final ConcurrentHashMap<String, Answered> answered = new ConcurrentHashMap<>();

    /**
     * The calls of one paused turn answered so far. Compared by identity: the answer that takes
     * it out of {@link #answered} is the one that lets the turn go on.
     */
    private static final class Answered {
        final Set<String> ids = ConcurrentHashMap.newKeySet();
    }

    Steer(Engine engine, Hub hub) {
        this.engine = engine;
        this.hub = hub;
    }

    /**
     * Answers a waiting call.
     *
     * @param body {@code answer} ({@code approve}, {@code deny}, {@code edit} or {@code reply}) with
     *     {@code reason}, {@code arguments} or {@code text}
     * @return whether this answer let the turn go on: every waiting call was answered, and no
     *     answer given at the same time did so already
     * @throws IllegalArgumentException when the answer is not one of those, or does not fit the call
     * @throws IllegalStateException when the call was answered already
     */
    boolean answer(String sessionId, String callId, JsonNode body) {
        JsonNode given = body.path("answer");
        Answer answer = switch (given.asString("")) {
            case "approve" -> Answer.approve();
            case "deny" -> Answer.deny(body.path("reason").asString("denied in the console"));
            case "edit" -> Answer.edit(body.path("arguments").asString(""));
            case "reply" -> Answer.reply(body.path("text").asString(""));
            default -> throw new IllegalArgumentException("answer must be approve, deny, edit or reply, was "
                    + received(given));
        };
        Session session = engine.resume(sessionId);
        boolean handed = false;
        try {
            session.answer(callId, answer);
            hub.change(b -> b.decided(sessionId, callId));
            Answered done = answered.computeIfAbsent(sessionId, k -> new Answered());
            done.ids.add(callId);
            List<PendingCall> waiting = session.pending();
            // Of two answers that both see every call answered, only the one that takes the set out goes on.
            if (!waiting.stream().allMatch(p -> done.ids.contains(p.id())) || !answered.remove(sessionId, done)) {
                return false;
            }
            Future<Turn> turn = session.submitProceed();
            handed = true;
            Thread.ofVirtual().name("shelly-console-proceed").start(() -> finish(session, turn));
            return true;
        } finally {
            if (!handed) {
                session.close();
            }
        }
    }

    /** The answer a request gave, for the error: quoted and cut short, or what it was instead of text. */
    private static String received(JsonNode given) {
        if (given.isMissingNode() || given.isNull()) {
            return "none";
        }
        if (!given.isString()) {
            return "a JSON " + given.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        }
        String text = given.asString();
        return "'" + (text.length() > 40 ? text.substring(0, 40) + "…" : text) + "'";
    }

    /** Waits for the turn the console let go on, then lets its handle go. */
    private static void finish(Session session, Future<Turn> turn) {
        try {
            turn.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.debug("the turn the console let go on in session {} ended with {}", session.id(), e.toString());
        } finally {
            session.close();
        }
    }

    /**
     * Cancels a run of the session's turn, or, without one, the turn: a paused turn ends, a running
     * one is cancelled at its entry agent's run.
     *
     * @return whether something was cancelled
     */
    boolean cancel(String sessionId, String runId) {
        try (Session session = engine.resume(sessionId)) {
            answered.remove(sessionId);
            if (runId != null && !runId.isBlank()) {
                return session.cancel(runId);
            }
            if (session.paused()) {
                session.cancel();
                hub.change(b -> b.pausedTurnCancelled(sessionId));
                return true;
            }
            for (Session.RunInfo run : session.runs()) {
                if (run.parentRunId() == null && run.state() == Session.RunInfo.State.RUNNING) {
                    return session.cancel(run.runId());
                }
            }
            return false;
        }
    }
}
