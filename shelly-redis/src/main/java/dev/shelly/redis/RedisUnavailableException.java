package dev.shelly.redis;

import dev.shelly.chats.ShellyException;

/**
 * Redis did not answer in time, refused a command, or the connection to it broke. The message
 * names the server (never its password) and the operation; the state in Redis is whole: every
 * write is one command or one script, which runs entirely or not at all. An operation that timed
 * out may still have run on the server: read before you retry a write that is not idempotent.
 */
public final class RedisUnavailableException extends ShellyException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what failed, where
     * @param cause the client's exception
     */
    public RedisUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
