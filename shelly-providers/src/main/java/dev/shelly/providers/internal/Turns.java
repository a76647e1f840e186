package dev.shelly.providers.internal;

import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;
import org.slf4j.Logger;

/**
 * A conversation as the APIs with one system prompt and strictly alternating sides take it
 * (Anthropic, Gemini): the text of the system messages joined by blank lines, and the other
 * messages' parts that the API can carry, merged into turns of one side each. A message left
 * with no part is left out. Internal: not part of Shelly's API.
 *
 * @param system the system prompt, empty when there is none
 * @param turns the turns, in order; each turn's list of parts is its own
 */
public record Turns(String system, List<Turn> turns) {

    /**
     * The parts of consecutive messages of one side.
     *
     * @param assistant whether the model's side said them
     * @param parts the parts, in order
     */
    public record Turn(boolean assistant, List<Part> parts) {}

    /**
     * Sorts a conversation into a system prompt and turns.
     *
     * @param messages the conversation
     * @param sendable whether a part can go in a message of the model's side ({@code true}) or
     *     the other
     * @param provider the provider's name, for the debug line of each part left out
     * @param log where that line goes
     * @return the system prompt and the turns
     */
    public static Turns of(List<Message> messages, BiPredicate<Part, Boolean> sendable, String provider, Logger log) {
        StringBuilder system = new StringBuilder();
        List<Turn> turns = new ArrayList<>(messages.size());
        for (Message m : messages) {
            if (m.role() == Role.SYSTEM) {
                String text = m.text();
                if (!text.isBlank()) {
                    system.append(system.isEmpty() ? "" : "\n\n").append(text);
                }
                continue;
            }
            boolean assistant = m.role() == Role.ASSISTANT;
            List<Part> parts = new ArrayList<>(m.parts().size());
            for (Part p : m.parts()) {
                if (sendable.test(p, assistant)) {
                    parts.add(p);
                } else {
                    log.debug("{}: not sending a {} part in a {} message", provider, p.kind(), m.role());
                }
            }
            if (parts.isEmpty()) {
                continue;
            }
            if (!turns.isEmpty() && turns.getLast().assistant() == assistant) {
                turns.getLast().parts().addAll(parts);
            } else {
                turns.add(new Turn(assistant, parts));
            }
        }
        return new Turns(system.toString(), turns);
    }
}
