package dev.shelly.engine;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.Approvals;
import dev.shelly.agent.Conversation;
import dev.shelly.chats.Chat;
import dev.shelly.chats.ShellyException;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.Usage;
import dev.shelly.storage.SessionBusyException;
import dev.shelly.storage.SessionExistsException;
import dev.shelly.storage.SessionNotFoundException;
import dev.shelly.storage.SessionRecord;
import dev.shelly.storage.internal.SessionIds;
import dev.shelly.storage.spi.SessionStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's sessions: one {@link LiveSession} per id open in this engine, shared by every
 * {@link Session} handle on it and let go when the last handle closes, and the store the
 * sessions are saved in, whose lease keeps each open session out of other engines' hands.
 */
final class SessionManager {
    private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

    private final String entryAgent;
    private final AgentFactory agents;
    private final SessionStore store;
    private final Duration wait;
    private final Clock clock;
    private final EventBus<AgentEvent> events;
    private final HumanInTheLoop human;
    private final LiveSession.Links links;
    private final ConcurrentHashMap<String, Slot> live = new ConcurrentHashMap<>();

    /**
     * The sessions of an engine.
     *
     * @param entryAgent the agent a new session starts with
     * @param store where sessions are saved, or null when they are not
     * @param links what every turn's run context carries: the engine's interceptors and telemetry
     */
    SessionManager(String entryAgent, AgentFactory agents, SessionStore store, Duration wait, Clock clock,
            EventBus<AgentEvent> events, HumanInTheLoop human, LiveSession.Links links) {
        this.entryAgent = entryAgent;
        this.agents = agents;
        this.store = store;
        this.wait = wait;
        this.clock = clock;
        this.events = events;
        this.human = human;
        this.links = links;
    }

    /** One id's entry in the live map: the live session once opened, and its open handles. */
    private static final class Slot {
        final ReentrantLock lock = new ReentrantLock();
        LiveSession session;
        int handles;
        boolean gone;

        /**
         * Marks the slot gone, once: after its last handle is released ({@code release}), or at
         * once. Its session does not change after that.
         *
         * @return true when this call let it go
         */
        boolean letGo(boolean release) {
            lock.lock();
            try {
                if (gone || (release && --handles > 0)) {
                    return false;
                }
                gone = true;
                return true;
            } finally {
                lock.unlock();
            }
        }
    }

    Session create() {
        return open(SessionIds.newId(clock), true, entryAgent);
    }

    Session create(String id) {
        return open(SessionIds.check(id, "Engine.newSession id"), true, entryAgent);
    }

    /**
     * Starts a session with a configured agent.
     *
     * @param id the id, or null for a new one
     * @throws IllegalArgumentException naming the configured agents when there is no such agent
     */
    Session create(String id, String agent) {
        if (agent == null || !agents.contains(agent)) {
            throw new IllegalArgumentException("no agent '" + agent + "'; configured agents: " + agents.names());
        }
        return open(id == null ? SessionIds.newId(clock) : SessionIds.check(id, "Engine.newSession id"), true, agent);
    }

    Session resume(String id) {
        return open(SessionIds.check(id, "Engine.resume id"), false, null);
    }

    /**
     * A saved session at a glance, read without holding it.
     *
     * @throws SessionNotFoundException when nothing is saved under the id
     */
    Session.Summary summary(String id) {
        SessionIds.check(id, "Engine.sessionSummary id");
        if (store == null) {
            throw new SessionNotFoundException(id);
        }
        return Session.Summary.of(store.peek(id).orElseThrow(() -> new SessionNotFoundException(id)));
    }

    /** Every saved session that can be read, at a glance; one that cannot is left out, with a WARN line. */
    List<Session.Summary> summaries() {
        List<Session.Summary> all = new ArrayList<>();
        for (String id : saved()) {
            try {
                store.peek(id).map(Session.Summary::of).ifPresent(all::add);
            } catch (RuntimeException e) {
                LOG.warn("session {} is left out of the summaries: {}", id, e.getMessage());
            }
        }
        return all;
    }

    List<String> saved() {
        return store == null ? List.of() : store.ids();
    }

    int open() {
        return live.size();
    }

    List<String> openIds() {
        List<String> ids = new ArrayList<>(live.keySet());
        ids.sort(null);
        return List.copyOf(ids);
    }

    void delete(String id) {
        SessionIds.check(id, "Engine.deleteSession id");
        if (live.containsKey(id)) {
            throw new SessionBusyException(id, "session '" + id + "' is open in this engine; close it before deleting it");
        }
        if (store == null) {
            throw new SessionNotFoundException(id);
        }
        store.delete(id, wait);
        LOG.info("session {} deleted", id);
    }

    private Session open(String id, boolean create, String agent) {
        while (true) {
            Slot slot = live.computeIfAbsent(id, k -> new Slot());
            slot.lock.lock();
            try {
                if (slot.gone) {
                    continue; // closed meanwhile; a fresh slot takes its place
                }
                if (slot.session == null) {
                    try {
                        slot.session = create ? start(id, agent) : load(id);
                    } catch (RuntimeException | Error e) {
                        slot.gone = true;
                        live.remove(id, slot);
                        throw e;
                    }
                } else if (create) {
                    throw new SessionExistsException(id);
                }
                slot.handles++;
                return new Session(slot.session, () -> release(id, slot));
            } finally {
                slot.lock.unlock();
            }
        }
    }

    private void release(String id, Slot slot) {
        if (!slot.letGo(true)) {
            return;
        }
        try {
            slot.session.shutdown();
        } finally {
            live.remove(id, slot);
        }
    }

    /** A new session; {@code entryAgent}, the agent it starts with, stands for the engine's here. */
    private LiveSession start(String id, String entryAgent) {
        SessionStore.Lease lease = store == null ? null : store.open(id, wait);
        LiveSession session = null;
        try {
            if (lease != null && lease.load().isPresent()) {
                throw new SessionExistsException(id);
            }
            session = new LiveSession(new LiveSession.Saved(id, entryAgent, clock.instant(), 0, Usage.ZERO,
                    Cost.ZERO), agents.agent(entryAgent), new Conversation(), lease, clock, events::publish,
                    human.approvals(), human.timer(), links, SessionJournal.of(id, lease));
            // Saved at once, so that another engine can resume it before its first turn.
            session.save();
            LOG.info("session {} opened with agent '{}'", id, entryAgent);
            return session;
        } catch (RuntimeException | Error e) {
            if (session != null) {
                session.shutdown();
            } else if (lease != null) {
                lease.close();
            }
            throw e;
        }
    }

    private LiveSession load(String id) {
        if (store == null) {
            throw new ShellyException("this engine saves no sessions and session '" + id
                    + "' is not open: give the engine a .shelly folder, a sessions folder or a session store");
        }
        SessionStore.Lease lease = store.open(id, wait);
        try {
            SessionRecord saved = lease.load().orElseThrow(() -> new SessionNotFoundException(id));
            if (!agents.contains(saved.entryAgent())) {
                throw new ShellyException("session '" + id + "' was held with agent '" + saved.entryAgent()
                        + "', which is no longer configured; configured agents: " + agents.names());
            }
            Approvals approvals = human.approvals();
            approvals.restore(saved.approvals());
            SessionJournal journal = SessionJournal.of(id, lease);
            journal.resumeFrom(approvals, clock);
            LiveSession session = new LiveSession(new LiveSession.Saved(id, saved.entryAgent(), saved.created(),
                    saved.version(), saved.usage(), saved.cost()), agents.agent(saved.entryAgent()),
                    new Conversation(Chat.ofEntries(saved.entries())), lease, clock, events::publish, approvals,
                    human.timer(), links, journal);
            session.scheduleExpiry();
            LOG.info("session {} resumed with agent '{}' ({} messages)", id, saved.entryAgent(), saved.entries().size());
            return session;
        } catch (RuntimeException | Error e) {
            lease.close();
            throw e;
        }
    }

    /** Lets every open session go, cancelling its turns; what a handle does after that fails. */
    void closeAll() {
        for (var entry : live.entrySet()) {
            Slot slot = entry.getValue();
            if (!slot.letGo(false)) {
                continue;
            }
            try {
                if (slot.session != null) {
                    slot.session.shutdown();
                }
            } catch (RuntimeException e) {
                LOG.warn("closing session {} failed: {}", entry.getKey(), e.toString());
            } finally {
                live.remove(entry.getKey(), slot);
            }
        }
    }
}
