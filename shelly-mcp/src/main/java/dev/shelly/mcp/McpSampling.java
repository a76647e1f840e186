package dev.shelly.mcp;

import java.util.List;

/**
 * A server's request for a model's message ({@code sampling/createMessage}).
 *
 * @param server the name of the server that asks
 * @param systemPrompt the system prompt it wants, or null
 * @param messages the conversation, text and images
 * @param maxTokens the most tokens to sample
 */
public record McpSampling(String server, String systemPrompt, List<McpPrompt.Message> messages, int maxTokens) {

    /** Checks the fields and copies the messages. */
    public McpSampling {
        if (server == null) {
            throw new IllegalArgumentException("McpSampling.server must not be null");
        }
        if (messages == null) {
            throw new IllegalArgumentException("McpSampling.messages must not be null");
        }
        messages = List.copyOf(messages);
    }

    /**
     * A message the model gave.
     *
     * @param text its text (empty when it gave none)
     * @param model the model's name, or null
     * @param stopReason why it stopped ({@code endTurn}, {@code maxTokens}, ...), or null
     */
    public record Reply(String text, String model, String stopReason) {
        /** Checks the text. */
        public Reply {
            if (text == null) {
                throw new IllegalArgumentException("McpSampling.Reply.text must not be null");
            }
        }
    }

    /** Answers sampling requests; an {@link McpToolClient} calls it on a thread of its own, which it may block. */
    @FunctionalInterface
    public interface Handler {
        /**
         * Samples a message.
         *
         * @param request what the server asks for
         * @return the model's message
         * @throws Exception a refusal or failure, which the server gets as an error with its message
         */
        Reply sample(McpSampling request) throws Exception;
    }
}
