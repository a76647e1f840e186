package dev.shelly.storage;

import dev.shelly.chats.ShellyException;

/** A new session was asked for under an id that is already taken; resume it instead. */
public final class SessionExistsException extends ShellyException {
    private static final long serialVersionUID = 1L;

    /** The id that is already taken. */
    private final String id;

    /**
     * The exception for an id.
     *
     * @param id the id asked for
     */
    public SessionExistsException(String id) {
        super("session '" + id + "' already exists; resume it or choose another id");
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
