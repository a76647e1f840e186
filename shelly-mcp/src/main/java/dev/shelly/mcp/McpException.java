package dev.shelly.mcp;

import dev.shelly.chats.ShellyException;

/**
 * An MCP server could not be reached: it did not start, did not finish the initialize handshake
 * in time, exited, or refused. The message names the server and says what happened.
 */
public class McpException extends ShellyException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what went wrong, naming the server
     */
    public McpException(String message) {
        super(message);
    }

    /**
     * Creates the exception with its cause.
     *
     * @param message what went wrong, naming the server
     * @param cause the underlying failure
     */
    public McpException(String message, Throwable cause) {
        super(message, cause);
    }
}
