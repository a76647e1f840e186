package dev.shelly.storage;

/** A new session was asked for under an id that is already taken; resume it instead. */
public final class SessionExistsException extends SessionException {
    private static final long serialVersionUID = 1L;

    /**
     * The exception for an id.
     *
     * @param id the id asked for
     */
    public SessionExistsException(String id) {
        super(id, "session '" + id + "' already exists; resume it or choose another id");
    }
}
