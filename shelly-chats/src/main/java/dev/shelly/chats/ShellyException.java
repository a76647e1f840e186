package dev.shelly.chats;

/**
 * The root of every exception Shelly throws on its own account.
 *
 * <p>It is unchecked: a caller that wants to handle Shelly failures catches this one type, and
 * more specific subtypes (model errors, configuration errors, agent failures) add what is known
 * about the failure. Invalid arguments are reported with {@link IllegalArgumentException}, as
 * the JDK does, not with this type.
 */
public class ShellyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception with a message.
     *
     * @param message what went wrong, naming the thing it went wrong with
     */
    public ShellyException(String message) {
        super(message);
    }

    /**
     * Creates an exception with a message and the failure that caused it.
     *
     * @param message what went wrong, naming the thing it went wrong with
     * @param cause the underlying failure
     */
    public ShellyException(String message, Throwable cause) {
        super(message, cause);
    }
}
