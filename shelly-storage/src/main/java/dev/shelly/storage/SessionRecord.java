package dev.shelly.storage;

import dev.shelly.agent.Approvals;
import dev.shelly.chats.Message;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.Usage;
import dev.shelly.storage.internal.LegacyUsage;
import dev.shelly.storage.internal.SessionIds;
import java.time.Instant;
import java.util.List;

/**
 * A saved conversation.
 *
 * @param id the session's id; a store keeps it under this id (a file store: its file name)
 * @param entryAgent the agent that answers in this session
 * @param created when the session began
 * @param updated when it was last saved
 * @param messages the conversation, system prompt included
 * @param version how many times the session was saved: each save of a session carries a higher
 *     version than the one before, and a store never lets a lower version replace a higher one
 * @param usage the tokens every model call of the session used, delegated agents included
 * @param cost what those calls cost, by the engine's price table when they were made
 * @param approvals what the session waits for when it is paused for a decision, the answers
 *     given and the decisions remembered for it ({@link Approvals.State#EMPTY} when none)
 */
public record SessionRecord(String id, String entryAgent, Instant created, Instant updated, List<Message> messages,
        long version, Usage usage, Cost cost, Approvals.State approvals) {
    /** Validates and copies. */
    public SessionRecord {
        SessionIds.check(id, "SessionRecord.id");
        if (entryAgent == null || entryAgent.isBlank()) {
            throw new IllegalArgumentException("SessionRecord.entryAgent of session '" + id + "' must not be null or blank");
        }
        if (created == null || updated == null) {
            throw new IllegalArgumentException("SessionRecord timestamps of session '" + id + "' must not be null");
        }
        if (messages == null) {
            throw new IllegalArgumentException("SessionRecord.messages of session '" + id + "' must not be null");
        }
        if (version < 0) {
            throw new IllegalArgumentException("SessionRecord.version of session '" + id + "' must not be negative, was "
                    + version);
        }
        messages = List.copyOf(messages);
        if (usage == null) {
            usage = Usage.ZERO;
        }
        if (cost == null) {
            cost = Cost.ZERO;
        }
        if (approvals == null) {
            approvals = Approvals.State.EMPTY;
        }
    }

    /**
     * A record of a session that waits for nothing.
     *
     * @param id the session's id
     * @param entryAgent the agent that answers in this session
     * @param created when the session began
     * @param updated when it was last saved
     * @param messages the conversation
     * @param version the save count
     * @param usage the tokens used
     * @param cost what they cost
     */
    public SessionRecord(String id, String entryAgent, Instant created, Instant updated, List<Message> messages,
            long version, Usage usage, Cost cost) {
        this(id, entryAgent, created, updated, messages, version, usage, cost, Approvals.State.EMPTY);
    }

    /**
     * A record whose cost was not kept (a session saved before costs were).
     *
     * @param id the session's id
     * @param entryAgent the agent that answers in this session
     * @param created when the session began
     * @param updated when it was last saved
     * @param messages the conversation
     * @param version the save count
     * @param usage the tokens used
     */
    public SessionRecord(String id, String entryAgent, Instant created, Instant updated, List<Message> messages,
            long version, Usage usage) {
        this(id, entryAgent, created, updated, messages, version, usage, Cost.ZERO);
    }

    /**
     * A record at version 0 whose usage is what its messages' replies report: a session saved
     * before versions and totals were kept.
     *
     * @param id the session's id
     * @param entryAgent the agent that answers in this session
     * @param created when the session began
     * @param updated when it was last saved
     * @param messages the conversation
     */
    public SessionRecord(String id, String entryAgent, Instant created, Instant updated, List<Message> messages) {
        this(id, entryAgent, created, updated, messages, 0, LegacyUsage.of(messages), Cost.ZERO);
    }

    /**
     * The same record under another id (a file copied under a new name is the session of that name).
     *
     * @param newId the id
     * @return the record
     */
    public SessionRecord withId(String newId) {
        return new SessionRecord(newId, entryAgent, created, updated, messages, version, usage, cost, approvals);
    }
}
