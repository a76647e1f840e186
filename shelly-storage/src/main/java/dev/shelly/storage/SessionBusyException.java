package dev.shelly.storage;

/**
 * A session is held by someone else — another engine, another process, or an open session in
 * this engine — and did not come free in time. Nothing was written: the caller may try again (a
 * service answers 409 or 503). The message names only the session asked for.
 */
public final class SessionBusyException extends SessionException {
    private static final long serialVersionUID = 1L;

    /**
     * The exception for a session.
     *
     * @param id the session's id
     * @param message what was tried and why it could not be done
     */
    public SessionBusyException(String id, String message) {
        super(id, message);
    }
}
