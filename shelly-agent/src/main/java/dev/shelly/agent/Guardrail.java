package dev.shelly.agent;

import dev.shelly.chats.Message;
import java.util.Optional;

/** Checks a final message before it leaves an agent; see {@link Middleware#outputGuardrail}. */
@FunctionalInterface
public interface Guardrail {

    /**
     * Checks a final message.
     *
     * @param reply the agent's final message
     * @return empty when the message may pass, otherwise the reason it is rejected
     */
    Optional<String> check(Message reply);
}
