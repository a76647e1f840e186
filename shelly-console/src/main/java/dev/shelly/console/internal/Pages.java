package dev.shelly.console.internal;

import dev.shelly.agent.PendingCall;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import dev.shelly.storage.SessionNotFoundException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the page loads: the sessions at a glance, and one session in full (its conversation, the
 * run tree of its current turn, what waits, its chart). Read from the engine's open sessions and
 * its saved ones, and from the {@link Board}.
 */
final class Pages {
    /** Messages of a conversation sent to the page: its last ones. */
    static final int MESSAGES = 500;

    private final Engine engine;
    private final Hub hub;

    Pages(Engine engine, Hub hub) {
        this.engine = engine;
        this.hub = hub;
    }

    /** Every session the engine holds open or has saved, newest activity first as the page sorts them. */
    ObjectNode sessions() {
        ObjectNode page = Views.object().put("seq", hub.seq());
        ArrayNode list = page.putArray("sessions");
        Map<String, ObjectNode> byId = new LinkedHashMap<>();
        for (Session.Summary saved : savedSummaries()) {
            ObjectNode s = Views.object().put("id", saved.id()).put("agent", saved.agent()).put("turns", saved.turns())
                    .put("paused", saved.paused()).put("open", false).put("lastActivity", Views.time(saved.lastUsed()));
            s.set("usage", Views.usage(saved.usage()));
            s.set("cost", Views.cost(saved.cost()));
            byId.put(saved.id(), s);
        }
        for (String id : engine.openSessionIds()) {
            ObjectNode s = open(id);
            if (s != null) {
                byId.put(id, s);
            }
        }
        byId.values().forEach(list::add);
        return page;
    }

    private List<Session.Summary> savedSummaries() {
        try {
            return engine.sessionSummaries();
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    /** An open session's line; null when it closed meanwhile. */
    private ObjectNode open(String id) {
        try (Session session = engine.resume(id)) {
            return line(session);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private ObjectNode line(Session session) {
        int turns = 0;
        for (Message m : session.chat().messages()) {
            if (m.role() == Role.USER && !m.text().isBlank()) {
                turns++;
            }
        }
        ObjectNode s = Views.object().put("id", session.id()).put("agent", session.entryAgent()).put("turns", turns)
                .put("paused", session.paused()).put("open", true);
        long[] at = new long[1];
        String last = hub.read(b -> Views.time(b.lastActivity(session.id())), at);
        s.put("lastActivity", last);
        s.set("usage", Views.usage(session.usage()));
        s.set("cost", Views.cost(session.cost()));
        return s;
    }

    /**
     * One session in full.
     *
     * @throws SessionNotFoundException when the engine neither holds nor saved it
     */
    ObjectNode session(String id) {
        long[] at = new long[1];
        ObjectNode detail = hub.read(b -> b.detail(id).deepCopy(), at);
        detail.put("seq", at[0]);
        if (!engine.openSessionIds().contains(id)) {
            detail.put("id", id).put("open", false);
            detail.putArray("conversation");
            Session.Summary saved;
            try {
                saved = engine.sessionSummary(id);
            } catch (SessionNotFoundException e) {
                if (!hub.read(b -> b.knows(id), at)) {
                    throw e;
                }
                // Closed and not saved: what its events showed.
                detail.set("summary", Views.object().put("id", id).put("open", false)
                        .put("lastActivity", detail.path("lastActivity").asString(null)));
                return detail;
            }
            ObjectNode s = Views.object().put("id", id).put("agent", saved.agent()).put("turns", saved.turns())
                    .put("paused", saved.paused()).put("open", false).put("lastActivity", Views.time(saved.lastUsed()));
            s.set("usage", Views.usage(saved.usage()));
            s.set("cost", Views.cost(saved.cost()));
            detail.set("summary", s);
            return detail;
        }
        try (Session session = engine.resume(id)) {
            detail.put("id", id).put("open", true);
            detail.set("summary", line(session));
            ArrayNode conversation = detail.putArray("conversation");
            List<Chat.Entry> entries = session.chat().entries();
            int from = Math.max(0, entries.size() - MESSAGES);
            for (Chat.Entry e : entries.subList(from, entries.size())) {
                ObjectNode m = Views.message(e.message());
                m.put("id", e.id()).put("at", Views.time(e.created()));
                conversation.add(m);
            }
            // What the session says waits is the truth; the board knows which run asked.
            Map<String, String> runs = new LinkedHashMap<>();
            detail.path("pending").forEach(p -> runs.put(p.path("id").asString(""), p.path("run").asString(null)));
            ArrayNode pending = detail.putArray("pending");
            for (PendingCall p : session.pending()) {
                pending.add(Board.pending(p, runs.get(p.id())));
            }
            return detail;
        }
    }
}
