package dev.shelly.storage;

import dev.shelly.chats.ShellyException;

/**
 * A session is held by someone else — another engine, another process, or an open session in
 * this engine — and did not come free in time. Nothing was written: the caller may try again (a
 * service answers 409 or 503). The message names only the session asked for.
 */
public final class SessionBusyException extends ShellyException {
    private static final long serialVersionUID = 1L;

    /** The id of the busy session. */
    private final String id;

    /**
     * The exception for a session.
     *
     * @param id the session's id
     * @param message what was tried and why it could not be done
     */
    public SessionBusyException(String id, String message) {
        super(message);
        this.id = id;
    }

    /**
     * The session's id.
     *
     * @return the id
     */
    public String id() {
        return id;
    }
}
