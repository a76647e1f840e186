package dev.shelly.storage;

/**
 * There is no saved session with the id asked for. The message names that id and nothing else:
 * no folder, no other session, so it can be shown to whoever asked (a service answers 404).
 */
public final class SessionNotFoundException extends SessionException {
    private static final long serialVersionUID = 1L;

    /**
     * The exception for an id.
     *
     * @param id the id asked for
     */
    public SessionNotFoundException(String id) {
        super(id, "no saved session '" + id + "'");
    }
}
