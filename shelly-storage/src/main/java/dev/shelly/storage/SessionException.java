package dev.shelly.storage;

import dev.shelly.chats.ShellyException;

/** What the errors about one session share: the id of that session, the only one they name. */
abstract sealed class SessionException extends ShellyException
        permits SessionBusyException, SessionExistsException, SessionNotFoundException {
    private static final long serialVersionUID = 1L;

    /** The id of the session. */
    private final String id;

    SessionException(String id, String message) {
        super(message);
        this.id = id;
    }

    /**
     * The id of the session asked for.
     *
     * @return the id
     */
    public String id() {
        return id;
    }
}
