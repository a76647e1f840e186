package dev.shelly.engine.session;

import dev.shelly.chats.Message;
import java.time.Instant;
import java.util.List;

/**
 * A saved conversation.
 *
 * @param id the session's id, also its file name
 * @param entryAgent the agent that answers in this session
 * @param created when the session began
 * @param updated when it was last saved
 * @param messages the conversation, system prompt included
 */
public record SessionRecord(String id, String entryAgent, Instant created, Instant updated, List<Message> messages) {
    /** Validates and copies. */
    public SessionRecord {
        SessionStore.checkId(id);
        if (entryAgent == null || entryAgent.isBlank()) {
            throw new IllegalArgumentException("SessionRecord.entryAgent must not be null or blank");
        }
        if (created == null || updated == null) {
            throw new IllegalArgumentException("SessionRecord timestamps must not be null");
        }
        messages = List.copyOf(messages);
    }
}
