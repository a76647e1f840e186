package dev.shelly.mcp;

import java.util.List;
import java.util.Map;

/**
 * A prompt an {@link McpToolServer} offers: named arguments in, messages out.
 *
 * @param name the prompt's name
 * @param title a human-readable title, or null
 * @param description what it is for, or null
 * @param arguments its arguments, in order
 * @param renderer makes its messages from the arguments
 */
public record McpPrompt(String name, String title, String description, List<Argument> arguments, Renderer renderer) {

    /** Checks the fields and copies the arguments. */
    public McpPrompt {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("McpPrompt.name must not be null or blank");
        }
        if (arguments == null || renderer == null) {
            throw new IllegalArgumentException("McpPrompt '" + name + "' needs arguments (may be empty) and a renderer");
        }
        arguments = List.copyOf(arguments);
    }

    /**
     * An argument of a prompt.
     *
     * @param name its name
     * @param description what to give, or null
     * @param required whether a client must give it
     */
    public record Argument(String name, String description, boolean required) {
        /** Checks the name. */
        public Argument {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("McpPrompt.Argument.name must not be null or blank");
            }
        }
    }

    /**
     * A message of a rendered prompt.
     *
     * @param assistant true for the assistant's message, false for the user's
     * @param content what it holds
     */
    public record Message(boolean assistant, McpBlock content) {
        /** Checks the content. */
        public Message {
            if (content == null) {
                throw new IllegalArgumentException("McpPrompt.Message.content must not be null");
            }
        }

        /**
         * A user message.
         *
         * @param content what it holds
         * @return the message
         */
        public static Message user(McpBlock content) {
            return new Message(false, content);
        }
    }

    /** Renders a prompt, on a virtual thread of the server. */
    @FunctionalInterface
    public interface Renderer {
        /**
         * Makes the messages.
         *
         * @param arguments the arguments the client gave; the required ones are all there
         * @return the messages
         * @throws Exception any failure, which the client gets as an error naming the prompt
         */
        List<Message> render(Map<String, String> arguments) throws Exception;
    }
}
