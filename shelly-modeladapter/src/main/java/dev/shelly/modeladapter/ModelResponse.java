package dev.shelly.modeladapter;

import dev.shelly.chats.Message;

/**
 * What one model call returned: the assistant's message and the facts about the call.
 *
 * @param message the assistant's reply
 * @param usage the tokens the call consumed; {@link Usage#ZERO} when not reported
 * @param stopReason why the model stopped; never null
 * @param providerStopReason the provider's own stop reason, such as {@code end_turn}, or null
 * @param model the model the provider reports, or null
 * @param responseId the provider's id of the reply, or null
 * @param provider the provider's name, or null
 */
public record ModelResponse(Message message, Usage usage, StopReason stopReason, String providerStopReason,
        String model, String responseId, String provider) {

    /** Checks the message and fills in usage and stop reason when missing. */
    public ModelResponse {
        if (message == null) {
            throw new IllegalArgumentException("ModelResponse.message must not be null");
        }
        if (usage == null) {
            usage = Usage.ZERO;
        }
        if (stopReason == null) {
            stopReason = message.hasToolCalls() ? StopReason.TOOL_USE : StopReason.END_TURN;
        }
    }

    /**
     * A response holding only a message.
     *
     * @param message the reply
     * @return the response, with zero usage and the stop reason the message implies
     */
    public static ModelResponse of(Message message) {
        return new ModelResponse(message, null, null, null, null, null, null);
    }

    /**
     * A copy with another message.
     *
     * @param value the message
     * @return the new response
     */
    public ModelResponse withMessage(Message value) {
        return new ModelResponse(value, usage, stopReason, providerStopReason, model, responseId, provider);
    }

    /**
     * A copy with another usage.
     *
     * @param value the usage; null for zero
     * @return the new response
     */
    public ModelResponse withUsage(Usage value) {
        return new ModelResponse(message, value, stopReason, providerStopReason, model, responseId, provider);
    }
}
