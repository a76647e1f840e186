package dev.shelly.storage;

import dev.shelly.chats.ShellyException;

/**
 * There is no saved session with the id asked for. The message names that id and nothing else:
 * no folder, no other session, so it can be shown to whoever asked (a service answers 404).
 */
public final class SessionNotFoundException extends ShellyException {
    private static final long serialVersionUID = 1L;

    /** The id no session has. */
    private final String id;

    /**
     * The exception for an id.
     *
     * @param id the id asked for
     */
    public SessionNotFoundException(String id) {
        super("no saved session '" + id + "'");
        this.id = id;
    }

    /**
     * The id asked for.
     *
     * @return the id
     */
    public String id() {
        return id;
    }
}
