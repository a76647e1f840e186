package dev.shelly.agent;

import dev.shelly.chats.Message;

/**
 * An {@linkplain RunInterceptor#outputGuardrail output guardrail} rejected an agent's final message. The
 * message stays in the agent's chat; {@link #rejected()} returns it.
 */
public final class GuardrailException extends AgentException {
    private static final long serialVersionUID = 1L;

    private final transient Message rejected;
    /** Why the guardrail rejected the message. */
    private final String reason;

    /**
     * Creates the exception.
     *
     * @param agent the agent's name
     * @param reason why the message was rejected
     * @param rejected the rejected message
     * @param cause the failure of the check itself, or null when the check rejected the message
     */
    public GuardrailException(String agent, String reason, Message rejected, Throwable cause) {
        super(agent, "the output guardrail rejected the final message of agent '" + agent + "': " + reason, cause);
        this.reason = reason;
        this.rejected = rejected;
    }

    /**
     * Why the message was rejected.
     *
     * @return the reason
     */
    public String reason() {
        return reason;
    }

    /**
     * The rejected message.
     *
     * @return the message
     */
    public Message rejected() {
        return rejected;
    }
}
